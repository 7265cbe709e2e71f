/**
 * Every ```ts run block in the user docs (README.md, docs/, the package READMEs) is a complete program: it is written to a file
 * inside the repo and run with Node (sources of the workspace packages, no build needed).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { scaledMs } from "@herald/core/testing";
import { describe, expect, it } from "vitest";
import { docFiles } from "./docs/snippets.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const out = join(root, ".cache/docs-examples");
mkdirSync(out, { recursive: true });

const blocks = docFiles(root).flatMap((file) => {
  const text = readFileSync(join(root, file), "utf8");
  return [...text.matchAll(/```ts run\n([\s\S]*?)```/g)].map((m, i) => ({
    file,
    i,
    code: m[1] ?? "",
  }));
});

describe("runnable docs examples", () => {
  it("finds examples to run", () => {
    expect(blocks.length).toBeGreaterThan(0);
  });
  it.each(blocks.map((b) => [`${b.file} #${b.i + 1}`, b] as const))(
    "%s runs",
    (_name, b) => {
      const path = join(out, `${b.file.replace(/\W+/g, "_")}_${b.i}.ts`);
      writeFileSync(path, b.code);
      const r = spawnSync(process.execPath, ["--conditions=herald-source", path], {
        cwd: root,
        encoding: "utf8",
        timeout: scaledMs(60_000),
      });
      expect(r.status, `${relative(root, path)}\n${r.stderr}`).toBe(0);
    },
    60_000,
  ); // each example starts a fake platform and a runtime: seconds on a loaded machine
});
