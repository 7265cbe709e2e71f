/**
 * Discovery fails loudly ([H16] 4): a workspace plugin whose `./testing` has no correctly named
 * `contractHarness`, or that has no `./testing` at all, fails the run with the fix — tested on
 * temporary fixture workspaces.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ContractDiscoveryError, discoverWorkspaceHarnesses } from "./discover.ts";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A workspace with one plugin `plugins/<name>` holding `files` (path → contents). */
function workspace(name: string, manifest: object, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "herald-discover-"));
  roots.push(root);
  const dir = join(root, "plugins", name);
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `@fixture/${name}`, ...manifest }),
  );
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return root;
}

const testingExport = { exports: { "./testing": { default: "./src/testing.mjs" } } };
const harnessModule = (exportName: string) =>
  `export const ${exportName} = { name: "fixture", guarantee: "hold", platform: async () => ({}), createAdapter: () => ({}) };\n`;

describe("workspace harness discovery fails loudly", () => {
  it("finds a correctly named contractHarness", async () => {
    const root = workspace("good", testingExport, {
      "src/testing.mjs": harnessModule("contractHarness"),
    });
    const found = await discoverWorkspaceHarnesses({ root });
    expect(found.map((f) => f.packageName)).toEqual(["@fixture/good"]);
  });

  it("fails on a misnamed export, naming it and the fix", async () => {
    const root = workspace("typo", testingExport, {
      "src/testing.mjs": harnessModule("contractHarnes"),
    });
    const error = await discoverWorkspaceHarnesses({ root }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractDiscoveryError);
    expect((error as Error).message).toContain("@fixture/typo");
    expect((error as Error).message).toContain(
      "found `contractHarnes`: rename it to `contractHarness`",
    );
  });

  it("fails on a plugin without a ./testing export, with the fix", async () => {
    const root = workspace("bare", { exports: { ".": "./src/index.mjs" } }, {});
    await expect(discoverWorkspaceHarnesses({ root })).rejects.toThrow(
      /@fixture\/bare .*no "\.\/testing" export — add exports\["\.\/testing"\]/,
    );
  });

  it('skips a package that opts out with "herald": { "contractSuite": false }', async () => {
    const root = workspace("tooling", { herald: { contractSuite: false } }, {});
    expect(await discoverWorkspaceHarnesses({ root })).toEqual([]);
  });

  it("loads one shard: every count-th plugin in package-name order, each plugin in one shard", async () => {
    const root = workspace("c", testingExport, {
      "src/testing.mjs": harnessModule("contractHarness"),
    });
    for (const name of ["a", "b"]) {
      const dir = join(root, "plugins", name);
      mkdirSync(join(dir, "src"), { recursive: true });
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: `@fixture/${name}`, ...testingExport }),
      );
      writeFileSync(join(dir, "src/testing.mjs"), harnessModule("contractHarness"));
    }
    const names = async (index: number) =>
      (await discoverWorkspaceHarnesses({ root, shard: { index, count: 2 } })).map(
        (f) => f.packageName,
      );
    expect(await names(0)).toEqual(["@fixture/a", "@fixture/c"]);
    expect(await names(1)).toEqual(["@fixture/b"]);
    await expect(names(2)).rejects.toThrow(RangeError);
  });
});
