/**
 * Preview cleanup keys (DESIGN §3 "Keys"; issue H14 item 4): a preview delete's key comes from
 * the live intent of its session run (`<live intent id>:cleanup#<index>`), never from the
 * user's live key, so on a keyed platform (Matrix redactions by txnId) the second run's delete
 * is not deduplicated against the first run's and no preview stays visible.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("live cleanup keys across runs of one live key", () => {
  it("a handler that errors twice (same live key): no preview stays visible", async () => {
    h = await liveHarness({ platform: { idempotent: true }, adapter: { idempotent: true } });
    for (const text of ["first attempt draft", "second attempt draft"]) {
      const live = await h.runtime.live(h.target, { idempotencyKey: "reply:in-7" });
      live.update(text);
      await live.idle();
      expect(h.visible()).toEqual([text]);
      await h.drive(live.cancel("error"));
      await h.time.advance(2_000);
    }
    const deletes = h.platform.calls.filter((c) => c.op === "delete");
    const keys = deletes.map((d) => ("key" in d ? d.key : undefined));
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
    expect(h.visible()).toEqual([]);
  });
});
