/**
 * Runs the contract suite against every workspace plugin that ships a `contractHarness` in its
 * `./testing` export — qa-channel itself today, every channel plugin as it lands. Part of
 * `pnpm check`.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { discoverWorkspaceHarnesses } from "./discover.ts";
import { describeChannelContract } from "./index.ts";

const root = fileURLToPath(new URL("../../../../../", import.meta.url));
const found = await discoverWorkspaceHarnesses({ root });

describe("workspace harness discovery", () => {
  it("finds the harness of every plugin that ships one, qa-channel included", () => {
    expect(found.map((f) => f.packageName)).toContain("@herald/plugin-qa-channel");
    for (const f of found) expect(typeof f.harness.createAdapter).toBe("function");
  });
});

for (const { harness } of found) describeChannelContract(harness);
