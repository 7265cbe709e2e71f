/**
 * In-doubt preview sends settle like delivery's unknown sends ([H14] items 3, 9; DESIGN §3
 * "Replay gate"): a preview send that timed out while the platform stores it late is looked up
 * only after the settle delay (`requestTimeoutMs + visibilityLagMs`), and a `best_effort`
 * not_sent never counts as absent — the late preview is found and deleted, never left next to
 * the final.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("live preview send timed out, stored late", () => {
  for (const reconcile of [true, "best_effort"] as const) {
    it(`reconcile ${String(reconcile)}: only the final is visible at the end`, async () => {
      h = await liveHarness({ adapter: { reconcile, requestTimeoutMs: 2_000 } });
      h.platform.failNext({ type: "store-late", delayMs: 1_500 }, 1, "send");
      const live = await h.runtime.live(h.target, { idempotencyKey: `late-${String(reconcile)}` });
      live.update("draft one");
      await h.time.advance(1_100);
      live.update("draft one two");
      await h.time.advance(1_100);
      await h.drive(live.finalize("the final answer"));
      await h.time.advance(10_000);
      expect(h.visible()).toEqual(["the final answer"]);
    });
  }

  it("best_effort, stored after the settle delay: cleanup keeps looking (recovery) and deletes it", async () => {
    h = await liveHarness({ adapter: { reconcile: "best_effort", requestTimeoutMs: 2_000 } });
    h.platform.failNext({ type: "store-late", delayMs: 5_000 }, 1, "send");
    const live = await h.runtime.live(h.target, { idempotencyKey: "later" });
    live.update("draft one");
    await h.time.advance(2_100); // settled: the lookup finds nothing, which proves nothing
    await h.drive(live.finalize("the final answer"));
    expect(h.platform.calls.filter((c) => c.op === "send")).toHaveLength(2); // no second preview
    await h.time.advance(10_000); // the late preview appears; the lease of the live intent lapses
    expect([...h.visible()].sort()).toEqual(["draft one", "the final answer"]); // stored late
    await h.runtime.recoverLive();
    expect(h.visible()).toEqual(["the final answer"]);
  });
});
