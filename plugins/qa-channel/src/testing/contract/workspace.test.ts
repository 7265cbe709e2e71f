/**
 * The contract suite runs against every workspace plugin that ships a `contractHarness` in its
 * `./testing` export — qa-channel itself, every channel plugin as it lands — split across the
 * `workspace.shard-<i>.test.ts` files (see `workspaceShard.ts`). Part of `pnpm check`. This file
 * checks the discovery and that every shard file is there (a missing one would drop plugins).
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { discoverWorkspaceHarnesses } from "./discover.ts";
import { WORKSPACE_ROOT, WORKSPACE_SHARDS } from "./workspaceShard.ts";

const found = await discoverWorkspaceHarnesses({ root: WORKSPACE_ROOT });

describe("workspace harness discovery", () => {
  it("finds the harness of every plugin that ships one, qa-channel included", () => {
    expect(found.map((f) => f.packageName)).toContain("@herald/plugin-qa-channel");
    for (const f of found) expect(typeof f.harness.createAdapter).toBe("function");
  });

  it("has a test file for every shard, and every plugin is in exactly one shard", async () => {
    const shards: string[][] = [];
    for (let index = 0; index < WORKSPACE_SHARDS; index++) {
      const file = new URL(`./workspace.shard-${index}.test.ts`, import.meta.url);
      expect(existsSync(file), `${file.pathname} is missing`).toBe(true);
      const shard = await discoverWorkspaceHarnesses({
        root: WORKSPACE_ROOT,
        shard: { index, count: WORKSPACE_SHARDS },
      });
      shards.push(shard.map((f) => f.packageName));
    }
    expect(
      existsSync(new URL(`./workspace.shard-${WORKSPACE_SHARDS}.test.ts`, import.meta.url)),
    ).toBe(false);
    expect(shards.flat().sort()).toEqual(found.map((f) => f.packageName).sort());
  });
});
