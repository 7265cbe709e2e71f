/**
 * `reconcileUnknownSend` (C39) on its own, against the fake homeserver: what a lookup by
 * `unsigned.transaction_id` can prove — found, proven absent (the room's start or an earlier
 * part of the same message reached), or nothing (the pages ran out: `unresolved`, never a
 * replay) — and that another device's event with the same txnId is not ours.
 */
import type {
  MessageSendContext,
  ReconcileResult,
  RenderedMessageUnit,
} from "@herald/plugin-sdk/channel-message";
import { unitIdempotencyKey } from "@herald/plugin-sdk/channel-message";
import { captureLogger } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMatrixAdapter } from "./index.ts";
import { eventRef, txnIdOf } from "./send.ts";
import { FAKE_BOT, FakeHomeserver, type FakeMatrixUser } from "./testing/FakeHomeserver.ts";
import { connectionOf, testConfig } from "./testing/harness.ts";

const INTENT = "0b9f6f1e-5d43-4c43-9d5b-2f1c8a1e7a10";
const KEY = "reply-1";

const OTHER_DEVICE: FakeMatrixUser = {
  ...FAKE_BOT,
  accessToken: "syt_otherDevice_lookup_0000",
  deviceId: "LAPTOP",
};

async function setup(lookupMaxPages = 10) {
  const fake = await FakeHomeserver.start({ users: [OTHER_DEVICE] });
  onTestFinished(() => fake.close());
  const c = connectionOf(fake);
  const adapter = createMatrixAdapter(
    testConfig(c, { homeserver: { kind: "dendrite", lookupMaxPages } }),
    c.accessToken,
    { userId: c.userId, deviceId: c.deviceId },
  );
  const room = fake.createRoom();
  const unit = (index: number): RenderedMessageUnit => ({
    index,
    kind: "text",
    required: true,
    payload: {
      type: "text",
      content: { msgtype: "m.notice", body: `part ${index}` },
      mentions: [],
    },
  });
  const ctx = (previous?: string): MessageSendContext => ({
    intentId: INTENT,
    channel: "matrix",
    message: {
      id: "m1",
      channel: "matrix",
      direction: "outbound",
      target: { kind: "group", id: room.id },
      body: { markdown: "x" },
    },
    attempt: 1,
    idempotencyKey: KEY,
    unitIdempotencyKey: unitIdempotencyKey(KEY, 0),
    signal: new AbortController().signal,
    log: captureLogger([]),
    ...(previous
      ? {
          previousReceipt: {
            platformMessageIds: [eventRef(room.id, previous)],
            parts: [{ platformMessageId: eventRef(room.id, previous), kind: "text", index: 0 }],
            sentAt: 0,
          },
        }
      : {}),
  });
  const txnOf = (index: number) => txnIdOf(unitIdempotencyKey(KEY, index), "send", INTENT);
  /** Stores unit `index` as `user`'s device sent it with the intent's txnId. */
  const store = (index: number, user: FakeMatrixUser = FAKE_BOT) =>
    fake.rooms.append({
      room_id: room.id,
      type: "m.room.message",
      sender: user.userId,
      content: { msgtype: "m.notice", body: `part ${index}` },
      txn: { deviceId: user.deviceId, txnId: txnOf(index) },
    });
  /** `n` other messages of the bot (earlier intents). */
  const chatter = (n: number) => {
    for (let i = 0; i < n; i++)
      fake.post({ room: room.id, sender: FAKE_BOT.userId, body: `old ${i}` });
  };
  const reconcile = (units: RenderedMessageUnit[], previous?: string): Promise<ReconcileResult> => {
    const r = adapter.send.reconcileUnknownSend;
    if (!r) throw new Error("the adapter has no reconciler");
    return r(ctx(previous), units);
  };
  return { fake, room, unit, store, chatter, reconcile };
}

describe("reconcileUnknownSend · by unsigned.transaction_id", () => {
  it("finds the unit under 150 later messages of the bot and commits its event id", async () => {
    const { room, unit, store, chatter, reconcile } = await setup();
    const event = store(0);
    chatter(150);
    expect(await reconcile([unit(0)])).toEqual({
      status: "sent",
      parts: [
        {
          platformMessageId: eventRef(room.id, event.event_id),
          kind: "text",
          index: 0,
          raw: { mentions: [] },
        },
      ],
    });
  });

  it("not found, the room's start reached: not_sent (proven absent, the replay is safe)", async () => {
    const { unit, chatter, reconcile } = await setup();
    chatter(30);
    expect(await reconcile([unit(0)])).toEqual({ status: "not_sent" });
  });

  it("not found within lookupMaxPages, the room's start not reached: unresolved, never not_sent", async () => {
    const { unit, chatter, reconcile } = await setup(1);
    chatter(150);
    const result = await reconcile([unit(0)]);
    expect(result.status).toBe("unresolved");
  });

  it("an earlier part of the same message bounds the search: passing it proves the rest absent", async () => {
    const { unit, store, chatter, reconcile } = await setup(1);
    chatter(150);
    const first = store(0);
    chatter(5);
    // Part 1 is missing; part 0 landed (previousReceipt): reaching part 0 proves part 1 absent.
    expect(await reconcile([unit(1)], first.event_id)).toEqual({ status: "not_sent" });
  });

  it("two missing parts, only the second found after the first was proven absent: sent with the one found", async () => {
    const { room, unit, store, reconcile } = await setup();
    const second = store(1);
    const result = await reconcile([unit(0), unit(1)]);
    expect(result).toMatchObject({
      status: "sent",
      parts: [{ platformMessageId: eventRef(room.id, second.event_id), index: 1 }],
    });
  });

  it("the same txnId from another device of the bot is not ours (no transaction_id for this device)", async () => {
    const { unit, store, reconcile } = await setup();
    store(0, OTHER_DEVICE);
    expect(await reconcile([unit(0)])).toEqual({ status: "not_sent" });
  });
});
