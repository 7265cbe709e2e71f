/**
 * `createCatchUpReceiver` (CASES C54): a conversation's live messages wait behind its catch-up
 * (order kept), positions move only past handled messages and, for live ones, only once the
 * conversation was caught up; positions survive a restart (a new receiver on the same store);
 * a failed run hands the held messages over and leaves the positions where they were.
 */
import { createCursorTracker, type ReceiveOutcome, SqliteStateStore } from "@herald/core";
import { afterEach, expect, it } from "vitest";
import { type CatchUpRunContext, createCatchUpReceiver } from "./catchUp.ts";
import type { ChannelReceiverSink } from "./plugin.ts";

type Raw = { conversation: string; at: number; text: string };
type Position = { at: number };

let store: SqliteStateStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

/** A sink over a real store's cursors that records what it was handed, and accepts it. */
function recordingSink(s: SqliteStateStore) {
  const received: string[] = [];
  const sink: ChannelReceiverSink = {
    receive(raw) {
      received.push((raw as Raw).text);
      const done: ReceiveOutcome = { status: "ignored", reason: "test" };
      return { ack: Promise.resolve({ kind: "accept" }), done: Promise.resolve(done) };
    },
    watermark: () => {
      throw new Error("not used");
    },
    cursor: (source) =>
      createCursorTracker({ store: s, key: { channel: "test", accountId: "main", source } }),
    logger: undefined as never,
  };
  return { sink, received };
}

/** A receiver whose live side is driven by the test, and whose run the test releases. */
function catchUpReceiver(
  sink: ChannelReceiverSink,
  run: (context: CatchUpRunContext<Position>) => Promise<string>,
) {
  let live!: ChannelReceiverSink;
  const receiver = createCatchUpReceiver<Position, string>({
    sink,
    receiver: (observed) => {
      live = observed;
      return {};
    },
    positions: {
      source: "history",
      decode: (text) => JSON.parse(text) as Position,
    },
    live: (raw) => {
      const r = raw as Raw;
      return { conversation: r.conversation, next: (p) => ({ at: Math.max(p?.at ?? 0, r.at) }) };
    },
    run,
  });
  return { receiver, post: (raw: Raw) => live.receive(raw) };
}

const stored = async (s: SqliteStateStore, conversation: string) => {
  const text = await s.getWatermark({
    channel: "test",
    accountId: "main",
    source: `history:${conversation}`,
  });
  return text === undefined ? undefined : (JSON.parse(text) as Position);
};

it("C54: live messages wait behind their conversation's catch-up; positions follow live messages only once it is caught up", async () => {
  store = new SqliteStateStore({ path: ":memory:" });
  const s = store;
  const { sink, received } = recordingSink(s);
  let releaseA!: () => void;
  const gateA = new Promise<void>((resolve) => {
    releaseA = resolve;
  });
  const { receiver, post } = catchUpReceiver(sink, async (ctx) => {
    await ctx.deliver("B", { conversation: "B", at: 5, text: "b5 (history)" }, () => ({ at: 5 }));
    ctx.caughtUp("B");
    await gateA; // conversation A is still being read
    for (const at of [1, 2]) {
      await ctx.deliver("A", { conversation: "A", at, text: `a${at} (history)` }, (p) => ({
        at: Math.max(p?.at ?? 0, at),
      }));
    }
    ctx.caughtUp("A");
    return "done";
  });
  await receiver.start?.();
  await new Promise((resolve) => setTimeout(resolve, 10));
  // A live message of A while A is being caught up: answered at once, handed over later.
  const held = post({ conversation: "A", at: 3, text: "a3 (live)" });
  expect(await held.ack).toEqual({ kind: "accept" });
  // B is caught up: its live message goes straight through and moves its position.
  await post({ conversation: "B", at: 6, text: "b6 (live)" }).done;
  expect(received).toEqual(["b5 (history)", "b6 (live)"]);
  releaseA();
  expect(await receiver.caughtUp()).toBe("done");
  await held.done;
  expect(received).toEqual([
    "b5 (history)",
    "b6 (live)",
    "a1 (history)",
    "a2 (history)",
    "a3 (live)",
  ]);
  await receiver.stop?.();
  expect(await stored(s, "B")).toEqual({ at: 6 });
  // a3 was handed over once A was caught up (after a1, a2), so it moves A's position as any
  // live message of a caught-up conversation does.
  expect(await stored(s, "A")).toEqual({ at: 3 });

  // A restart: the positions are read back; live messages move them once caught up.
  const again = recordingSink(s);
  const seen: Array<Position | undefined> = [];
  const second = catchUpReceiver(again.sink, async (ctx) => {
    seen.push(await ctx.positions.get("A"), await ctx.positions.get("B"));
    ctx.caughtUp("A");
    ctx.caughtUp("B");
    return "second";
  });
  await second.receiver.start?.();
  expect(await second.receiver.caughtUp()).toBe("second");
  expect(seen).toEqual([{ at: 3 }, { at: 6 }]);
  await second.post({ conversation: "A", at: 9, text: "a9 (live)" }).done;
  await second.receiver.stop?.();
  expect(await stored(s, "A")).toEqual({ at: 9 });
});

it("C54: a failed catch-up hands the held live messages over and leaves the positions", async () => {
  store = new SqliteStateStore({ path: ":memory:" });
  const s = store;
  const { sink, received } = recordingSink(s);
  let fail!: () => void;
  const failing = new Promise<void>((_, reject) => {
    fail = () => reject(new Error("history read refused"));
  });
  const { receiver, post } = catchUpReceiver(sink, async () => {
    await failing;
    return "never";
  });
  await receiver.start?.();
  const held = post({ conversation: "A", at: 3, text: "a3 (live)" });
  expect(received).toEqual([]);
  fail();
  expect(await receiver.caughtUp()).toBeUndefined();
  await held.done;
  expect(received).toEqual(["a3 (live)"]);
  await receiver.stop?.();
  expect(await stored(s, "A")).toBeUndefined();
});
