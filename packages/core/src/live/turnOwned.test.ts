/**
 * [H14] item 8 — typing indicators and live sessions belong to their turn: whatever the
 * outcome (completed, error, interrupted), the turn stops what it opened; `stop()` aborts the
 * indicator call in flight, and no typing call reaches the platform after the final reply.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { FakePlatform } from "../testing/fakePlatform.ts";
import type { LiveHarness } from "./testing/harness.ts";
import { liveHarness } from "./testing/harness.ts";
import type { ManualTime } from "./testing/manualTime.ts";

const TYPING = { live: { editRate: { limit: 1, intervalMs: 1_000 }, typing: true } };

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

function inbound(harness: LiveHarness, id: string): ChannelMessage {
  return {
    id,
    channel: "qa",
    accountId: "bot-1",
    direction: "inbound",
    target: harness.target.target,
    sender: { id: "user-1" },
    body: { markdown: "question" },
  };
}

/** How many "show typing" calls the platform got so far. */
function typingShown(platform: FakePlatform): number {
  return platform.calls.filter((c) => c.op === "typing" && c.on === true).length;
}

describe("a turn stops what it opened", () => {
  it("a turn that throws: its live session is cancelled and its typing stops at once", async () => {
    h = await liveHarness({ adapter: TYPING });
    const harness = h;
    const turn = harness.runtime.turn(inbound(harness, "in-1"), async () => {
      const live = await harness.runtime.live(harness.target);
      live.update("draft");
      await live.idle();
      throw new Error("the model call failed");
    });
    await expect(harness.drive(turn)).rejects.toThrow("the model call failed");
    await harness.time.settle();
    const shown = typingShown(harness.platform);
    expect(harness.visible()).toEqual([]); // the preview was deleted (onCancel: delete)
    expect(harness.platform.isTyping("dm-1")).toBe(false);
    await harness.time.advance(30_000);
    expect(typingShown(harness.platform)).toBe(shown); // no refresh until the 60 s cap
  });

  it("a turn that returns without finalizing, and runtime.typing inside a turn, are stopped", async () => {
    h = await liveHarness({ adapter: TYPING });
    const harness = h;
    await harness.drive(
      harness.runtime.turn(inbound(harness, "in-2"), async () => {
        harness.runtime.typing(harness.target);
        const live = await harness.runtime.live(harness.target, { typing: false });
        live.update("draft");
        await live.idle();
      }),
    );
    await harness.time.settle();
    const shown = typingShown(harness.platform);
    expect(harness.visible()).toEqual([]);
    expect(harness.platform.isTyping("dm-1")).toBe(false);
    await harness.time.advance(30_000);
    expect(typingShown(harness.platform)).toBe(shown);
  });

  it("an interrupted turn (watchdog) stops its typing too", async () => {
    h = await liveHarness({ adapter: TYPING });
    const harness = h;
    const turn = harness.runtime.turn(
      inbound(harness, "in-3"),
      async () => {
        harness.runtime.typing(harness.target);
        await new Promise(() => {}); // hangs
      },
      { watchdogMs: 5_000 },
    );
    await expect(harness.drive(turn, 500)).rejects.toThrow(/watchdog|interrupted/i);
    await harness.time.settle();
    const shown = typingShown(harness.platform);
    expect(harness.platform.isTyping("dm-1")).toBe(false);
    await harness.time.advance(30_000);
    expect(typingShown(harness.platform)).toBe(shown);
  });
});

/** A typing call that takes `ms` on the wire and is cancelled by its signal (like fetch). */
function slowTyping(time: ManualTime, ms: number) {
  return (adapter: ChannelMessageAdapter, platform: FakePlatform): ChannelMessageAdapter => {
    const typing = adapter.live?.typing;
    if (!typing) throw new Error("the fake adapter has typing");
    return {
      ...adapter,
      live: {
        ...adapter.live,
        typing: {
          ...typing,
          start: (ctx) =>
            new Promise<void>((resolve, reject) => {
              const timer = time.timers.setTimeout(() => {
                platform.call({ op: "typing", chat: ctx.message.target.id, on: true });
                resolve();
              }, ms);
              ctx.signal.addEventListener("abort", () => {
                time.timers.clearTimeout(timer);
                reject(ctx.signal.reason);
              });
            }),
        },
      },
    };
  };
}

describe("stop() aborts the call in flight", () => {
  it("no typing call lands after the final reply", async () => {
    h = await liveHarness({
      adapter: TYPING,
      wrap: (adapter, platform, time) => slowTyping(time, 300)(adapter, platform),
    });
    const live = await h.runtime.live(h.target);
    await h.time.advance(4_050); // the refresh at 4 s is on the wire (300 ms)
    const finalized = h.drive(live.finalize("the answer"), 10);
    const receipt = await finalized;
    expect(receipt.platformMessageIds).toHaveLength(1);
    await h.time.advance(10_000);
    const calls = h.platform.calls;
    const finalAt = calls.findIndex((c) => c.op === "send" && c.text === "the answer");
    expect(finalAt).toBeGreaterThanOrEqual(0);
    const typingAfter = calls.slice(finalAt).filter((c) => c.op === "typing" && c.on === true);
    expect(typingAfter).toEqual([]);
    expect(h.platform.isTyping("dm-1")).toBe(false);
  });
});
