/**
 * Each live preview edit is its own platform operation with its own unit key (DESIGN §3 "Keys";
 * issue H14 item 4): on a platform that applies a keyed edit once per key (Matrix txnIds), no
 * preview edit of a session is deduplicated away.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

const INTERVAL = 1_020;

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("live preview edit keys", () => {
  it("every preview edit lands on a keyed platform, each with its own key", async () => {
    h = await liveHarness({ platform: { idempotent: true }, adapter: { idempotent: true } });
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:keys" });
    for (const text of ["one", "one two", "one two three", "one two three four"]) {
      live.update(text);
      await live.idle();
      expect(h.visible()).toEqual([text]);
      await h.time.advance(INTERVAL);
    }
    const keys = h.platform.calls
      .filter((c) => c.op === "edit")
      .map((c) => ("key" in c ? c.key : undefined));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
    await h.drive(live.finalize("one two three four five"));
    expect(h.visible()).toEqual(["one two three four five"]);
  });
});
