/**
 * [H28] C51: on a Node below 22.18, `herald` prints one line naming the Node it needs — not a
 * `node:sqlite` stack. Checked with the real entry module: on this Node with the version
 * reported as 20 (always), and on a real older Node when the machine has one (the entry's
 * types stripped, the CLI behind it replaced by a marker that must never load).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { MIN_NODE_VERSION, nodeVersionOk } from "./nodeVersion.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const pkg = JSON.parse(readFileSync(join(here, "../../package.json"), "utf8")) as {
  engines: { node: string };
};

/** A `node` on PATH (or /usr/bin/node) older than the floor, if this machine has one. */
function olderNode(): string | undefined {
  const candidates = new Set(
    [
      ...(spawnSync("sh", ["-c", "which -a node"], { encoding: "utf8" }).stdout ?? "").split("\n"),
      "/usr/bin/node",
      "/usr/local/bin/node",
    ].filter(Boolean),
  );
  for (const bin of candidates) {
    try {
      const v = execFileSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
      if (!nodeVersionOk(v)) return bin;
    } catch {
      // not there
    }
  }
  return undefined;
}

const ONE_LINE =
  /^herald: needs Node\.js >= 22\.18 \(this is Node 20[.\d]*\); install Node 24[^\n]*\n$/;

describe("herald on an old Node (C51)", () => {
  it("the floor is package.json engines.node", () => {
    expect(pkg.engines.node).toBe(`>=${MIN_NODE_VERSION.replace(/\.0$/, "")}`);
    expect(nodeVersionOk("22.17.1")).toBe(false);
    expect(nodeVersionOk("v22.18.0")).toBe(true);
    expect(nodeVersionOk("24.1.0")).toBe(true);
    expect(nodeVersionOk("20.19.0")).toBe(false);
  });

  it("prints one line naming the Node it needs (this Node, reporting 20.11.0)", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--conditions=herald-source",
        "--import",
        `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.11.0"})`,
        join(here, "main.ts"),
        "--help",
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(r.stderr).toMatch(ONE_LINE);
    expect(r.stdout).toBe("");
    expect(r.status).toBe(1);
  });

  const old = olderNode();
  it.skipIf(!old)(`prints that line on a real older Node (${old ?? "none here"})`, () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-old-node-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const strip = (file: string) =>
      stripTypeScriptTypes(readFileSync(join(here, file), "utf8"))
        .replaceAll("./nodeVersion.ts", "./nodeVersion.mjs")
        .replaceAll("./program.ts", "./program.mjs");
    writeFileSync(join(dir, "main.mjs"), strip("main.ts"));
    writeFileSync(join(dir, "nodeVersion.mjs"), strip("nodeVersion.ts"));
    writeFileSync(
      join(dir, "program.mjs"),
      'export async function runCli() { console.log("the CLI loaded"); }\n',
    );
    const r = spawnSync(old ?? "node", [join(dir, "main.mjs"), "--help"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.stderr).toMatch(ONE_LINE);
    expect(r.stdout).toBe("");
    expect(r.status).toBe(1);
  });
});
