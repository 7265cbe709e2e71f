/**
 * The bootstrap's Node floor is the package.json `engines.node` (verified: 22.18 is the first
 * Node 22 with `node:sqlite` unflagged *with* the busy timeout and `isTransaction` — 22.13
 * ignores `timeout` and lacks `isTransaction` — and unflagged type stripping). A system Node
 * below it is not used: the bootstrap puts its own Node 24 on the PATH instead.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { scaledMs } from "@herald/core/testing";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** A `node` that reports `version` (and is otherwise the real one). */
function fakeNode(version: string): string {
  const dir = mkdtempSync(join(tmpdir(), `herald-node-${version}-`));
  const file = join(dir, "node");
  writeFileSync(
    file,
    `#!/bin/sh
if [ "$1" = "-e" ]; then
  code="$2"; shift 2
  exec "${process.execPath}" -e "Object.defineProperty(process.versions, 'node', { value: '${version}' }); $code" "$@"
fi
exec "${process.execPath}" "$@"
`,
  );
  chmodSync(file, 0o755);
  return file;
}

function nodeChosenWith(systemNode: string): string {
  const r = spawnSync(join(root, "scripts/bootstrap.sh"), ["sh", "-c", "command -v node"], {
    env: { ...process.env, HERALD_BOOTSTRAP_NODE: systemNode },
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe("bootstrap Node floor", () => {
  it("every package.json says >=22.18", () => {
    for (const dir of [
      ".",
      "packages/core",
      "packages/gateway",
      "packages/plugin-sdk",
      "packages/store-postgres",
      "plugins/qa-channel",
      "plugins/telegram",
    ]) {
      const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
      expect([dir, pkg.engines?.node]).toEqual([dir, ">=22.18"]);
    }
  });

  it(
    "keeps a system Node at the floor, replaces one below it (22.13: node:sqlite without busy timeout)",
    () => {
      const ok = fakeNode("22.18.0");
      expect(nodeChosenWith(ok)).toBe(ok);
      const old = fakeNode("22.13.0");
      expect(nodeChosenWith(old)).toContain(join(".cache", "toolchain"));
    },
    scaledMs(120_000),
  ); // on a fresh checkout whose system Node was fine, this fetches Node 24 first

  it(
    "runs the command in the caller's folder, so the documented pnpm pack loop packs each package ([H28] C51)",
    () => {
      // docs/getting-started.md: (cd "$p" && ../../scripts/bootstrap.sh pnpm pack …)
      const dir = join(root, "packages/core");
      const r = spawnSync("../../scripts/bootstrap.sh", ["sh", "-c", "pwd && pnpm pkg get name"], {
        cwd: dir,
        encoding: "utf8",
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${dir}\n"@herald/core"\n`);
    },
    scaledMs(60_000),
  );
});
