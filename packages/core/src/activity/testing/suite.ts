/**
 * The threaded activity log suite: the 22 end-to-end cases of the seed's test plan
 * (`threaded-activity-log.md`, "E2E test plan"), plus cases 23–27 on thread anchors and reply
 * placement (DESIGN §7–8), as one function that registers Vitest tests
 * for any channel whose adapter declares thread replies and edits — core's fake platform, the
 * QA channel, or a third-party plugin, each through its own {@link ActivityLogSuiteHarness}.
 *
 * @module
 */
import { afterEach, beforeEach, describe } from "vitest";
import { ActivityLogForwarder } from "../ActivityLogForwarder.ts";
import { anchorCases } from "./anchorCases.ts";
import { lifecycleCases } from "./lifecycleCases.ts";
import { type ActivityLogSuiteHarness, type SuiteContext, suiteContext } from "./suiteHarness.ts";
import { threadCases } from "./threadCases.ts";

export type {
  ActivityLogSuiteHarness,
  SuiteVisibleMessage,
  SuiteWhere,
} from "./suiteHarness.ts";

/**
 * Registers the threaded activity log cases (1–27) for a channel.
 *
 * @param name - shown in the test names, e.g. `"qa-channel"`.
 * @param create - a fresh, started harness per test (closed after it).
 * @example
 * describeActivityLogSuite("qa-channel", async () => qaThreadHarness());
 */
export function describeActivityLogSuite(
  name: string,
  create: () => Promise<ActivityLogSuiteHarness>,
): void {
  describe(`threaded activity log: ${name}`, () => {
    let current: SuiteContext | undefined;
    let n = 0;
    beforeEach(async () => {
      n += 1;
      const h = await create();
      current = suiteContext(
        h,
        `activity-chat-${n}`,
        (o) => new ActivityLogForwarder(h.runtime, o),
      );
    });
    afterEach(async () => {
      await current?.dispose();
      current = undefined;
    });
    const ctx = (): SuiteContext => {
      if (!current) throw new Error("suite context used outside a test");
      return current;
    };
    threadCases(ctx);
    lifecycleCases(ctx);
    anchorCases(ctx);
  });
}
