/**
 * Every ```ts run block in the user docs (README.md, docs/, the package READMEs) is a complete program: it is written to a file
 * inside the repo and run with Node (sources of the workspace packages, no build needed).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { scaledMs, trackChild } from "@herald/core/testing";
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

/**
 * Runs `node --conditions=herald-source path` in the repo root; its exit code and stderr. The
 * child is SIGKILLed past its (scaled) limit, and by the suite's teardown if the test ends first.
 */
function runExample(path: string): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = trackChild(
      spawn(process.execPath, ["--conditions=herald-source", path], {
        cwd: root,
        stdio: ["ignore", "ignore", "pipe"],
      }),
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const limitMs = scaledMs(60_000);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      stderr += `\n(killed: ran longer than ${limitMs} ms)`;
    }, limitMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

// The examples run a few at a time (`it.concurrent`, Vitest's maxConcurrency): each is a Node
// process that mostly waits on its fake platform, one after another they took minutes.
describe("runnable docs examples", () => {
  it("finds examples to run", () => {
    expect(blocks.length).toBeGreaterThan(0);
  });
  // Each example starts a fake platform and a runtime: seconds on a loaded machine.
  it.concurrent.for(blocks.map((b) => ({ name: `${b.file} #${b.i + 1}`, b })))(
    "$name runs",
    { timeout: scaledMs(120_000) },
    async ({ b }, { expect }) => {
      const path = join(out, `${b.file.replace(/\W+/g, "_")}_${b.i}.ts`);
      writeFileSync(path, b.code);
      const r = await runExample(path);
      expect(r.status, `${relative(root, path)}\n${r.stderr}`).toBe(0);
    },
  );
});
