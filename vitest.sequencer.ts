/**
 * The order Vitest starts test files in. Its default sorts by project name, then by the last
 * run's duration — which a fresh clone (CI) does not have, so by file size — and the longest
 * files (a few hundred lines of test code or less that spawn hundreds of child processes) started
 * last, when the other worker had nothing left to run beside them. Longest first instead.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that take minutes, longest first (a full run, one file at a time, on the shared 2-core
 * machine; seconds, before the gate's sizes): core's randomized crash runs (375 at 144 runs; 58
 * in the gate), the workspace contract suite (one shard per channel, ~100 each), PostgreSQL's
 * multi-process drain (233 at 5,000 intents; 1,000 in the gate), the webhook burst (57 at 600
 * updates; 200 in the gate).
 */
const LONGEST_FIRST = [
  "packages/core/src/delivery/crash.test.ts",
  "plugins/qa-channel/src/testing/contract/workspace.shard-",
  "plugins/qa-channel/src/testing/contract/variants.test.ts",
  "examples/plugin-httpchat/src/mutants.test.ts",
  "examples/plugin-httpchat/src/contract.test.ts",
  "packages/store-postgres/src/multiprocess.test.ts",
  "scripts/lib/docs-examples.test.ts",
  "scripts/lib/load/webhookBurst.test.ts",
  "plugins/qa-channel/src/testing/contract/mutants/",
  "packages/gateway/src/startup.test.ts",
];

function rank(spec: TestSpecification): number {
  const path = spec.moduleId.replaceAll("\\", "/");
  const i = LONGEST_FIRST.findIndex((p) => path.includes(`/${p}`));
  return i === -1 ? LONGEST_FIRST.length : i;
}

/** {@link BaseSequencer}'s order, with the {@link LONGEST_FIRST} files moved to the front. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, i) => ({ spec, i, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
