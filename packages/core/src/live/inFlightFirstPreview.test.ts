/**
 * The final is decided while the session's FIRST preview send is still in flight (the platform
 * stored it, its answer has not arrived): the final's intent is written first (DESIGN §3
 * "Waiting is durable"), and once the call lands the session looks again — a preview that
 * already shows the final is the final (C12: "never preview plus a copy"), so no second message.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessageAdapter } from "../index.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

/** Holds the answer of the first preview send (the platform stores it at once) for 5 s. */
function slowFirstAnswer(
  adapter: ChannelMessageAdapter,
  time: { timers: { setTimeout(f: () => void, ms: number): unknown } },
): ChannelMessageAdapter {
  let sends = 0;
  return {
    ...adapter,
    send: {
      ...adapter.send,
      async send(ctx, unit) {
        const answer = await adapter.send.send(ctx, unit);
        sends += 1;
        if (sends === 1) await new Promise<void>((r) => time.timers.setTimeout(r, 5_000));
        return answer;
      },
    },
  };
}

describe("final decided while the first preview send is in flight", () => {
  it("an id-less preview (C12) that shows the final text is the final: one visible message", async () => {
    h = await liveHarness({ wrap: (adapter, _p, time) => slowFirstAnswer(adapter, time) });
    h.platform.failNext({ type: "omit-id" }, 1, "send");
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:c12-in-flight" });
    live.update("The answer is 42.");
    await h.time.settle();
    expect(h.visible()).toEqual(["The answer is 42."]); // stored; its answer is still held
    const receipt = await h.drive(live.finalize("The answer is 42."), 500, 60_000);
    expect(h.visible()).toEqual(["The answer is 42."]);
    expect(receipt.parts).toHaveLength(1);
    expect(await h.store.getIntentByIdempotencyKey("reply:c12-in-flight")).toMatchObject({
      status: "sent",
    });
  });

  it("a preview with an id that shows the final text is kept, not deleted and re-sent", async () => {
    h = await liveHarness({ wrap: (adapter, _p, time) => slowFirstAnswer(adapter, time) });
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:kept-in-flight" });
    live.update("Done.");
    await h.time.settle();
    const [preview] = h.platform.visible();
    const receipt = await h.drive(live.finalize("Done."), 500, 60_000);
    expect(h.visible()).toEqual(["Done."]);
    expect(receipt.primaryPlatformMessageId).toBe(preview?.id);
  });

  it("a preview that differs from the final is replaced: the final once, the preview deleted", async () => {
    h = await liveHarness({ wrap: (adapter, _p, time) => slowFirstAnswer(adapter, time) });
    const live = await h.runtime.live(h.target, { idempotencyKey: "reply:differs-in-flight" });
    live.update("Thinking");
    await h.time.settle();
    await h.drive(live.finalize("The final answer."), 500, 60_000);
    expect(h.visible()).toEqual(["The final answer."]);
  });
});
