/**
 * Hostile `/sync` answers (a broken homeserver or a proxy): a malformed room, timeline or event
 * is dead-lettered with its field path, the batch's good events are processed, and the sync
 * loop keeps going — also when the same malformed answer comes again.
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { eventRef } from "./send.ts";
import { type Bench, openBench } from "./testing/bench.ts";
import { ALICE } from "./testing/FakeHomeserver.ts";

const goodEvent = (id: string, body: string) => ({
  event_id: id,
  type: "m.room.message",
  sender: ALICE.userId,
  origin_server_ts: 1,
  content: { msgtype: "m.text", body },
});

const BAD_ROOM = "!bad:fake.test";
const syncCalls = (b: Bench) => b.fake.server.calls.filter((c) => c.op === "sync").length;
const handledIds = (b: Bench) => b.handled.map((h) => h.input.platformMessageId);
const deadLetters = (b: Bench) =>
  b.outcomes
    .filter((o) => o.status === "dead_lettered")
    .map((o) => String((o as { error?: Error }).error?.message));

/** A bench with a room and its receiver long-polling. */
async function pollingBench(sync: Record<string, unknown> = {}) {
  const b = await openBench({
    config: { sync: { pollTimeoutMs: 300, retryDelayMs: 20, ...sync } },
  });
  const room = b.fake.createRoom();
  await b.startReceiver();
  await eventually(
    () => syncCalls(b),
    (n) => n >= 2,
    { what: "the receiver long-polling" },
  );
  return { b, room };
}

/** Starts a receiver whose next `times` `/sync` answers carry `rooms(goodRoom)`. */
async function hostile(rooms: (goodRoom: string) => unknown, times = 3) {
  const { b, room } = await pollingBench();
  const before = syncCalls(b);
  b.fake.failNext(
    {
      kind: "status",
      status: 200,
      body: { next_batch: `s${b.fake.rooms.position}`, rooms: rooms(room.id) },
    },
    { op: "sync", times },
  );
  // The poll under way answers normally; the next `times` get the hostile answer.
  await eventually(
    () => syncCalls(b),
    (n) => n > before + times,
    { what: "the hostile answers served" },
  );
  const later = b.fake.post({ room: room.id, sender: ALICE.userId, body: "later" });
  await eventually(
    () => handledIds(b),
    (ids) => ids.includes(eventRef(room.id, later.event_id)),
    { what: "an event after the hostile answers" },
  );
  return { b, roomId: room.id };
}

const withGood = (goodRoom: string, bad: unknown) => ({
  join: { [BAD_ROOM]: bad, [goodRoom]: { timeline: { events: [goodEvent("$good1", "hello")] } } },
});

describe("hostile /sync answers", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["a joined room that is null", null, /rooms\.join\.!bad:fake\.test: /],
    [
      "timeline.events an object",
      { timeline: { events: {} } },
      /rooms\.join\.!bad:fake\.test\.timeline\.events: /,
    ],
    ["timeline a string", { timeline: "nope" }, /rooms\.join\.!bad:fake\.test\.timeline: /],
    [
      "state.events an object",
      { state: { events: { a: 1 } }, timeline: { events: [] } },
      /rooms\.join\.!bad:fake\.test\.state\.events: /,
    ],
    [
      "prev_batch a number",
      { timeline: { events: [], limited: true, prev_batch: 7 } },
      /rooms\.join\.!bad:fake\.test\.timeline\.prev_batch: /,
    ],
    [
      "summary member count a string",
      { summary: { "m.joined_member_count": "2" } },
      /rooms\.join\.!bad:fake\.test\.summary\.m\.joined_member_count: /,
    ],
  ];
  for (const [name, bad, path] of cases) {
    it(`${name}: dead-lettered with its path; the batch's good event is processed once and the loop goes on`, async () => {
      const { b, roomId } = await hostile((good) => withGood(good, bad));
      expect(handledIds(b).filter((id) => id === eventRef(roomId, "$good1"))).toHaveLength(1);
      expect(deadLetters(b).some((m) => path.test(m))).toBe(true);
    });
  }

  it("timeline entries that are not events (null, a number, a string, no event_id): each dead-lettered with its path, the good one processed", async () => {
    const { b, roomId } = await hostile((good) => ({
      join: {
        [good]: {
          timeline: {
            events: [null, 5, "x", { type: "m.room.message" }, goodEvent("$good1", "hello")],
            limited: false,
          },
        },
      },
    }));
    expect(handledIds(b).filter((id) => id === eventRef(roomId, "$good1"))).toHaveLength(1);
    const dead = deadLetters(b);
    expect(dead.filter((m) => /payload invalid at event: /.test(m)).length).toBeGreaterThanOrEqual(
      3,
    );
    expect(dead.some((m) => /payload invalid at event\.event_id: /.test(m))).toBe(true);
  });

  it("rooms.join an array and rooms a string: dead-lettered with the path, the loop goes on", async () => {
    const { b } = await hostile(() => ({ join: [1, 2] }), 1);
    expect(deadLetters(b).some((m) => /at rooms\.join: /.test(m))).toBe(true);
    const second = await hostile(() => "rooms!", 1);
    expect(deadLetters(second.b).some((m) => /at rooms: /.test(m))).toBe(true);
  });

  it("an answer without next_batch is refused with a typed error naming next_batch and asked again; nothing of it is handed over", async () => {
    const { b, room } = await pollingBench();
    b.fake.failNext(
      {
        kind: "status",
        status: 200,
        body: { rooms: { join: { [room.id]: { timeline: { events: [goodEvent("$x", "x")] } } } } },
      },
      { op: "sync", times: 2 },
    );
    const before = syncCalls(b);
    await eventually(
      () => syncCalls(b),
      (n) => n > before + 2,
      { what: "the answers without next_batch served" },
    );
    const later = b.fake.post({ room: room.id, sender: ALICE.userId, body: "later" });
    await eventually(
      () => handledIds(b),
      (ids) => ids.includes(eventRef(room.id, later.event_id)),
    );
    expect(handledIds(b)).not.toContain(eventRef(room.id, "$x"));
    expect(b.logLines.some((l) => l.includes("payload invalid at next_batch"))).toBe(true);
  });

  it("a limited timeline whose back-fill is refused (403) is processed without the gap (logged), not asked again forever", async () => {
    const { b, room } = await pollingBench({ timelineLimit: 2 });
    b.fake.failNext(
      { kind: "status", status: 403, code: "M_FORBIDDEN", description: "history not visible" },
      { op: "messages", times: 100 },
    );
    const posted = Array.from({ length: 4 }, (_, i) =>
      b.fake.post({ room: room.id, sender: ALICE.userId, body: `m${i}` }),
    );
    const newest = posted.slice(-2).map((e) => eventRef(room.id, e.event_id));
    await eventually(
      () => handledIds(b),
      (ids) => newest.every((id) => ids.includes(id)),
      { what: "the newest events despite the refused back-fill" },
    );
    // Logged and counted as an unfilled gap, with its room (C38: never silent).
    const gap = b.logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.code === "HERALD_MATRIX_GAP_UNFILLED");
    expect(gap).toMatchObject({ level: "error", roomId: room.id, kind: "permission" });
    expect(String(gap?.msg)).toContain("refused");
  });
});
