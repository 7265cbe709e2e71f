/**
 * Native streams (DESIGN §6; PLATFORMS §8 "Slack streams"; case C24): mode `auto` chooses the
 * platform's stream where it serves the target, and `finish` hands the adapter what is already
 * shown, so a platform whose stop call appends never shows the reply twice.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelMessage } from "../message/message.ts";
import { createMessageRuntime } from "../runtime.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";
import type { LiveTimers } from "./types.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const INTERVAL = 1_020; // a little past the 1 s edit rate
const editRate = { limit: 1, intervalMs: 1_000 };
/** Like Slack: streams only for a known recipient; stop appends its text. */
const slackLike = {
  live: {
    editRate,
    stream: {
      stop: "append" as const,
      supports: (m: ChannelMessage) => m.recipient !== undefined,
    },
  },
};

describe("live mode auto", () => {
  it("streams natively where the channel supports the target, with the recipient on the message", async () => {
    h = await liveHarness({ adapter: slackLike });
    const recipient = { userId: "U_ALICE", teamId: "T1" };
    const live = await h.runtime.live({ ...h.target, recipient }, { mode: "auto" });
    expect(live.mode).toBe("native");
    live.update("Hello");
    await live.idle();
    expect(h.platform.visible("dm-1")).toMatchObject([{ text: "Hello", streaming: true }]);
    await h.drive(live.finalize("Hello!"));
    const [final] = await h.store.listIntents({ limit: 10 });
    expect(final?.message.recipient).toEqual(recipient);
  });

  it("uses previews where the stream does not serve the target, and blocks where nothing can edit", async () => {
    h = await liveHarness({ adapter: slackLike });
    expect((await h.runtime.live(h.target, { mode: "auto" })).mode).toBe("partial");
    await h.close();
    h = await liveHarness({ adapter: { live: { editRate } } });
    expect((await h.runtime.live(h.target, { mode: "auto" })).mode).toBe("partial");
    await h.close();
    h = await liveHarness({ adapter: { live: { edit: false } } });
    const live = await h.runtime.live(h.target, { mode: "auto" });
    expect(live.mode).toBe("block");
    live.update("First paragraph.\n\nSecond");
    await live.idle(); // the first block is shown before the final is asked for
    await h.drive(live.finalize("First paragraph.\n\nSecond paragraph."));
    expect(h.visible()).toEqual(["First paragraph.", "Second paragraph."]);
  });
});

describe("native finish on a platform whose stop appends (C24)", () => {
  it("sends only what is not shown: the text is exactly the final, once", async () => {
    h = await liveHarness({ adapter: slackLike });
    const live = await h.runtime.live(
      { ...h.target, recipient: { userId: "U_ALICE" } },
      { mode: "native" },
    );
    live.update("Hello ");
    await live.idle();
    await h.time.advance(INTERVAL);
    live.update("Hello wor");
    await live.idle();
    expect(h.visible()).toEqual(["Hello wor"]);
    await h.drive(live.finalize("Hello world"));
    expect(h.platform.visible("dm-1")).toMatchObject([{ text: "Hello world", streaming: false }]);
    const stop = h.platform.calls.find((c) => c.op === "stream_finish");
    expect(stop).toMatchObject({ append: "ld" });
  });

  it("replaces the text when an append's outcome is unknown, so nothing shows twice", async () => {
    h = await liveHarness({ adapter: slackLike });
    const live = await h.runtime.live(
      { ...h.target, recipient: { userId: "U_ALICE" } },
      { mode: "native" },
    );
    live.update("Hello ");
    await live.idle();
    await h.time.advance(INTERVAL);
    h.platform.failNext({ type: "accept-then-drop" }, 1, "stream_append");
    live.update("Hello world");
    await live.idle();
    expect(h.visible()).toEqual(["Hello world"]); // it landed, but the adapter was not told
    await h.drive(live.finalize("Hello world!"));
    expect(h.platform.visible("dm-1")).toMatchObject([{ text: "Hello world!", streaming: false }]);
    const [final] = await h.store.listIntents({ limit: 10 });
    expect(final?.liveState).toMatchObject({ nativeShown: { text: "Hello ", exact: false } });
  });

  it("rewritten text is replaced, not appended", async () => {
    h = await liveHarness({ adapter: slackLike });
    const live = await h.runtime.live(
      { ...h.target, recipient: { userId: "U_ALICE" } },
      { mode: "native" },
    );
    live.update("Maybe yes");
    await live.idle();
    await h.drive(live.finalize("No."));
    expect(h.visible()).toEqual(["No."]);
  });

  it("a finish recovered after a crash still sends only what was not shown", async () => {
    h = await liveHarness({ adapter: slackLike });
    // The process that dies: its timers never fire, so its finish retry never runs.
    const frozen: LiveTimers = { setTimeout: () => 0, clearTimeout: () => {} };
    const doomed = createMessageRuntime({
      store: h.store,
      adapters: [createFakeAdapter({ ...slackLike, transport: inProcessTransport(h.platform) })],
      clock: h.time.now,
      random: () => 0.5,
      delivery: { workerId: "doomed", leaseMs: 10_000, backoff: { baseMs: 100, maxMs: 1_000 } },
      live: { timers: frozen, recoveryIntervalMs: 0 },
    });
    const live = await doomed.live(
      { ...h.target, recipient: { userId: "U_ALICE" } },
      { mode: "native", idempotencyKey: "reply:crash" },
    );
    live.update("Hello ");
    await live.idle();
    h.platform.failNext({ type: "status", status: 503 }, 1, "stream_finish");
    // Stuck waiting (edit rate, then the 503's backoff) on timers that never fire: it died.
    void live.finalize("Hello world").catch(() => {});
    await new Promise((r) => setTimeout(r, 20));
    expect(h.visible()).toEqual(["Hello "]);
    await h.time.advance(10_001);
    await h.drive(h.runtime.recoverLive());
    expect(h.platform.visible("dm-1")).toMatchObject([{ text: "Hello world", streaming: false }]);
    expect(await h.store.getIntentByIdempotencyKey("reply:crash")).toMatchObject({
      status: "sent",
    });
  });
});
