/**
 * The workspace contract run, split into {@link WORKSPACE_SHARDS} test files
 * (`workspace.shard-<i>.test.ts`): one file per plugin today, so Vitest runs the channels'
 * suites in parallel workers instead of all of them one after another in one file. Every plugin
 * is in exactly one shard (by its position in package-name order), so a plugin that lands is
 * tested without a new file.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { discoverWorkspaceHarnesses } from "./discover.ts";
import { describeChannelContract } from "./index.ts";

/** How many `workspace.shard-<i>.test.ts` files there are (`workspace.test.ts` checks). */
export const WORKSPACE_SHARDS = 6;

/** The workspace root (five folders up from here). */
export const WORKSPACE_ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));

/**
 * Registers the full contract suite for every workspace plugin of shard `index`.
 *
 * @throws RangeError when `index` is not `0 ≤ index < WORKSPACE_SHARDS`.
 */
export async function describeWorkspaceShard(index: number): Promise<void> {
  const found = await discoverWorkspaceHarnesses({
    root: WORKSPACE_ROOT,
    shard: { index, count: WORKSPACE_SHARDS },
  });
  for (const { harness } of found) describeChannelContract(harness);
}
