/**
 * The `/sync` receiver over the real matrix-js-sdk client against the fake homeserver: the
 * durable cursor (C31), limited timelines back-filled, invites, encrypted rooms, own echoes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { MatrixEncryptedRoomError } from "./errors.ts";
import { createSyncReceiver } from "./receiver.ts";
import { eventRef } from "./send.ts";
import { type Bench, openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT, FakeHomeserver, OTHER_FAKE_BOT } from "./testing/FakeHomeserver.ts";
import { testConfig } from "./testing/harness.ts";

const CURSOR = { channel: "matrix", accountId: "main", source: "sync" };

function tempStore(): string {
  const dir = mkdtempSync(join(tmpdir(), "herald-matrix-sync-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "state.db");
}

const handledIds = (b: Bench) => b.handled.map((h) => h.input.platformMessageId);
/** How many `/sync` calls the fake answered. */
const syncCalls = (b: Bench) => b.fake.server.calls.filter((c) => c.path.endsWith("/sync")).length;

describe("C31 · sync checkpoint", () => {
  it("C31 (a): while $e1 is unfinished the stored cursor stays s1 though /sync moved on; after a restart $e1 is fetched again and processed exactly once", async () => {
    const storePath = tempStore();
    const fake = await FakeHomeserver.start();
    onTestFinished(() => fake.close());
    const room = fake.createRoom();
    // Process 1: the handler blocks; the platform is answered only by a manual ack, never given.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = await openBench({
      on: fake,
      storePath,
      receive: { ackPolicy: { kind: "manual" } },
      handler: () => gate,
    });
    await first.startReceiver();
    const s1 = await eventually(
      () => first.store.getWatermark(CURSOR),
      (v) => v !== undefined,
      { what: "the initial sync's cursor" },
    );
    const e1 = fake.post({ room: room.id, sender: ALICE.userId, body: "$e1" });
    await eventually(
      () => first.handled.length,
      (n) => n === 1,
      { what: "$e1 handed to the handler" },
    );
    // The receiver has long-polled past s2 in memory; the stored cursor has not moved.
    await eventually(
      () => syncCalls(first),
      (n) => n >= 3,
      { what: "the next long poll" },
    );
    expect(await first.store.getWatermark(CURSOR)).toBe(s1);
    // The handler finishes as the process goes down; the manual ack was never given.
    release();
    await eventually(
      () => first.outcomes.length,
      (n) => n === 1,
    );
    expect(await first.store.getWatermark(CURSOR)).toBe(s1);
    await first.close();

    // Process 2 on the same store: resumes at s1 and gets $e1 again — answered as a duplicate.
    const second = await openBench({ on: fake, storePath });
    await second.startReceiver();
    const ref = eventRef(room.id, e1.event_id);
    await eventually(
      () => second.outcomes.find((o) => o.status === "duplicate" && o.key.eventId === ref),
      (o) => o !== undefined,
      { what: "$e1 fetched again after the restart" },
    );
    const s2 = await eventually(
      () => second.store.getWatermark(CURSOR),
      (v) => v !== s1,
      { what: "the cursor to move past $e1" },
    );
    expect(s2).not.toBe(s1);
    expect(handledIds(first)).toEqual([ref]);
    expect(handledIds(second)).toEqual([]);
  });

  it("C31 (b): restarted with no usable token, the initial sync returns $a (handled before) and $b (sent while down): $a skipped by event id, $b processed once", async () => {
    const storePath = tempStore();
    const fake = await FakeHomeserver.start();
    onTestFinished(() => fake.close());
    const room = fake.createRoom({ direct: true });
    const first = await openBench({ on: fake, storePath });
    await first.startReceiver();
    const a = fake.post({ room: room.id, sender: ALICE.userId, body: "$a" });
    await eventually(
      () => handledIds(first),
      (ids) => ids.length === 1,
    );
    await first.close();
    // The stored token is unusable (emptied): the next start makes an initial sync.
    const { SqliteStateStore } = await import("@herald/plugin-sdk/testing");
    const store = new SqliteStateStore({ path: storePath });
    await store.setWatermark(CURSOR, "");
    await store.close();
    const b = fake.post({ room: room.id, sender: ALICE.userId, body: "$b" });

    const second = await openBench({ on: fake, storePath });
    await second.startReceiver();
    const refB = eventRef(room.id, b.event_id);
    await eventually(
      () => second.outcomes.length,
      (n) => n >= 2,
      { what: "both events of the initial sync settled" },
    );
    expect(handledIds(second)).toEqual([refB]);
    const refA = eventRef(room.id, a.event_id);
    expect(second.outcomes.some((o) => o.status === "duplicate" && o.key.eventId === refA)).toBe(
      true,
    );
  });
});

describe("limited timelines", () => {
  it("back-fills a limited: true timeline with /messages: every one of 7 events is processed, in order", async () => {
    const b = await openBench({
      config: { sync: { timelineLimit: 2, backfillPageSize: 2, pollTimeoutMs: 500 } },
    });
    const room = b.fake.createRoom();
    await b.startReceiver();
    await eventually(
      () => syncCalls(b),
      (n) => n >= 2,
      { what: "the receiver to be long-polling" },
    );
    const posted = Array.from({ length: 7 }, (_, i) =>
      b.fake.post({ room: room.id, sender: ALICE.userId, body: `m${i}` }),
    );
    const refs = posted.map((e) => eventRef(room.id, e.event_id));
    await eventually(
      () => handledIds(b).length,
      (n) => n >= 7,
      { what: "all seven events" },
    );
    expect(handledIds(b)).toEqual(refs);
    expect(b.fake.server.calls.some((c) => c.op === "messages")).toBe(true);
  });
});

describe("C38 · empty page with a next token", () => {
  it("a first /messages page of chunk: [] with an end (Synapse's filtering) does not end the back-fill: 7 user messages behind it are each handled once", async () => {
    const b = await openBench({
      config: { sync: { timelineLimit: 2, backfillPageSize: 5, pollTimeoutMs: 500 } },
    });
    const room = b.fake.createRoom();
    // Synapse drops the events of users the bot ignores after fetching a page (fake switch).
    b.fake.ignoreUser(FAKE_BOT.userId, OTHER_FAKE_BOT.userId);
    const receiver = await b.startReceiver();
    await eventually(
      () => syncCalls(b),
      (n) => n >= 2,
      { what: "the receiver to be long-polling" },
    );
    // Oldest first: 7 user messages, 5 hidden ones (the first back-fill page), 2 in the timeline.
    const behind = Array.from({ length: 7 }, (_, i) =>
      b.fake.post({ room: room.id, sender: ALICE.userId, body: `behind ${i}` }),
    );
    for (let i = 0; i < 5; i++) {
      b.fake.post({ room: room.id, sender: OTHER_FAKE_BOT.userId, body: `hidden ${i}` });
    }
    const timeline = [0, 1].map((i) =>
      b.fake.post({ room: room.id, sender: ALICE.userId, body: `timeline ${i}` }),
    );
    const refs = [...behind, ...timeline].map((e) => eventRef(room.id, e.event_id));
    await eventually(
      () => handledIds(b).length,
      (n) => n >= 9,
      { what: "the 7 messages behind the empty page and the 2 of the timeline" },
    );
    expect(handledIds(b)).toEqual(refs);
    // The fake did answer an empty page with a next token (the case is real, not skipped).
    const pages = b.fake.server.calls.filter((c) => c.op === "messages");
    expect(pages.length).toBe(3);
    expect(receiver.counters()).toEqual({ gapsUnfilled: 0, backfilledEvents: 7 });
  });

  it("a gap larger than backfillMaxPages is logged with its room and tokens and counted, never silent", async () => {
    const b = await openBench({
      config: {
        sync: { timelineLimit: 1, backfillPageSize: 1, backfillMaxPages: 2, pollTimeoutMs: 500 },
      },
    });
    const room = b.fake.createRoom();
    const receiver = await b.startReceiver();
    await eventually(
      () => syncCalls(b),
      (n) => n >= 2,
      { what: "the receiver to be long-polling" },
    );
    for (let i = 0; i < 5; i++) b.fake.post({ room: room.id, sender: ALICE.userId, body: `m${i}` });
    await eventually(
      () => receiver.counters().gapsUnfilled,
      (n) => n === 1,
      { what: "the unfilled gap counted" },
    );
    const line = b.logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.code === "HERALD_MATRIX_GAP_UNFILLED");
    expect(line).toMatchObject({ level: "error", roomId: room.id, pages: 2 });
    expect(typeof line?.from).toBe("string");
    expect(typeof line?.to).toBe("string");
    expect(typeof line?.next).toBe("string");
  });
});

describe("C45 · M_LIMIT_EXCEEDED on /sync", () => {
  it("a /sync answered 403 M_LIMIT_EXCEEDED with Retry-After: 5 waits the 5 s, not the 50 ms backoff", async () => {
    const b = await openBench();
    const config = testConfig(b.connection);
    const waits: number[] = [];
    b.fake.failNext(
      { kind: "rate_limit", retryAfterMs: 5_000, via: "header", status: 403 },
      { op: "sync" },
    );
    const receiver = createSyncReceiver({
      http: b.parts.http,
      sink: b.sink("matrix", "main"),
      config: config.sync,
      userId: FAKE_BOT.userId,
      rooms: b.parts.rooms,
      requestTimeoutMs: config.requestTimeoutMs,
      secrets: [FAKE_BOT.accessToken],
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    b.onClose(() => receiver.stop?.());
    await receiver.start?.();
    await eventually(
      () => waits.length,
      (n) => n >= 1,
      { what: "the wait after the rate-limited /sync" },
    );
    expect(waits[0]).toBe(5_000);
    expect(config.sync.retryDelayMs).toBe(50);
  });
});

describe("invites, encryption, echoes", () => {
  it("joins invites with sync.invites: join; ignores them by default", async () => {
    const joining = await openBench({ config: { sync: { invites: "join", pollTimeoutMs: 300 } } });
    const room = joining.fake.createRoom({ members: [ALICE.userId] });
    joining.fake.rooms.invite(room.id, FAKE_BOT.userId, ALICE.userId);
    await joining.startReceiver();
    await eventually(
      () => room.members.has(FAKE_BOT.userId),
      (joined) => joined,
      { what: "the bot to join" },
    );

    const ignoring = await openBench({ config: { sync: { pollTimeoutMs: 300 } } });
    const other = ignoring.fake.createRoom({ members: [ALICE.userId] });
    ignoring.fake.rooms.invite(other.id, FAKE_BOT.userId, ALICE.userId);
    await ignoring.startReceiver();
    await eventually(
      () => syncCalls(ignoring),
      (n) => n >= 2,
    );
    expect(other.members.has(FAKE_BOT.userId)).toBe(false);
  });

  it("an encrypted room: its m.room.encrypted events are dead-lettered with MatrixEncryptedRoomError, and sends to it fail", async () => {
    const b = await openBench();
    const room = b.fake.createRoom({ encrypted: true });
    b.fake.rooms.append({
      room_id: room.id,
      type: "m.room.encrypted",
      sender: ALICE.userId,
      content: { algorithm: "m.megolm.v1.aes-sha2", ciphertext: "AwgAEn…" },
    });
    await b.startReceiver();
    const outcome = await eventually(
      () => b.outcomes.find((o) => o.status === "dead_lettered"),
      (o) => o !== undefined,
      { what: "the encrypted event dead-lettered" },
    );
    expect(String((outcome as { error?: Error }).error?.message)).toContain("end-to-end encrypted");
    await expect(
      b.runtime.send(b.say({ kind: "group", id: room.id }, "not into an encrypted room")),
    ).rejects.toThrow(/encrypted/);
    expect(b.fake.rooms.messagesOf(room.id)).toEqual([]);
    expect(new MatrixEncryptedRoomError(room.id).code).toBe("HERALD_MATRIX_ENCRYPTED");
  });

  it("drops its own messages by user id, and processes a reply to it with the reply fallback stripped", async () => {
    const b = await openBench();
    const room = b.fake.createRoom();
    await b.startReceiver();
    const sent = await b.runtime.send(b.say({ kind: "group", id: room.id }, "hello from herald"));
    const eventId = sent.primaryPlatformMessageId?.split(":").at(-1) as string;
    const reply = b.fake.post({
      room: room.id,
      sender: ALICE.userId,
      body: "> <@herald:fake.test> hello from herald\n\nthanks @herald:fake.test",
      replyTo: eventId,
    });
    const ref = eventRef(room.id, reply.event_id);
    await eventually(
      () => handledIds(b),
      (ids) => ids.includes(ref),
    );
    expect(b.outcomes.find((o) => o.status === "dropped")).toMatchObject({ reason: "self" });
    const [turn] = b.handled;
    expect(turn?.input.body?.markdown).toBe("thanks @herald:fake.test");
    expect(turn?.event.mentionsSelf).toBe(true);
    expect(turn?.input.threadAnchor).toEqual({ threadId: reply.event_id });
  });
});
