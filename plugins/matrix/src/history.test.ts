/**
 * [H23] history on Matrix: the recent messages of a room (`/messages` backwards) and of a
 * thread (the `m.thread` relations plus the root), oldest first, the bot's own as outbound,
 * edits folded, redactions left out, `before` paging. Real matrix-js-sdk against the fake.
 */
import { describe, expect, it } from "vitest";
import { eventRef } from "./send.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE } from "./testing/FakeHomeserver.ts";

describe("H23 · Matrix history", () => {
  it("H23 history: the last N messages oldest first, own ones outbound, an edit's event skipped and a redacted message gone; before pages back", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    b.fake.post({ room: roomId, sender: ALICE.userId, body: "one" });
    const gone = b.fake.post({ room: roomId, sender: ALICE.userId, body: "oops" });
    b.fake.rooms.append({
      room_id: roomId,
      type: "m.room.redaction",
      sender: ALICE.userId,
      content: { redacts: gone.event_id },
      redacts: gone.event_id,
    });
    const answer = await b.runtime.send(b.say(target, "two"));
    await b.runtime.edit(answer, b.say(target, "two (edited)"));
    const three = b.fake.post({ room: roomId, sender: ALICE.userId, body: "three" });

    const all = await b.runtime.history({
      channel: "matrix",
      accountId: "main",
      target,
      limit: 10,
    });
    expect(all.map((m) => [m.body?.markdown, m.direction])).toEqual([
      ["one", "inbound"],
      ["two", "outbound"],
      ["three", "inbound"],
    ]);
    const lastTwo = await b.runtime.history({
      channel: "matrix",
      accountId: "main",
      target,
      limit: 2,
    });
    expect(lastTwo.map((m) => m.body?.markdown)).toEqual(["two", "three"]);
    const older = await b.runtime.history({
      channel: "matrix",
      accountId: "main",
      target,
      limit: 10,
      before: eventRef(roomId, three.event_id),
    });
    expect(older.map((m) => m.body?.markdown)).toEqual(["one", "two"]);
  });

  it("H23 history: a thread's messages through the m.thread relations, root first", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const root = b.fake.post({ room: roomId, sender: ALICE.userId, body: "root" });
    b.fake.post({ room: roomId, sender: ALICE.userId, body: "outside" });
    b.fake.post({ room: roomId, sender: ALICE.userId, body: "in 1", thread: root.event_id });
    b.fake.post({ room: roomId, sender: ALICE.userId, body: "in 2", thread: root.event_id });
    const thread = await b.runtime.history({
      channel: "matrix",
      accountId: "main",
      target,
      threadId: root.event_id,
      limit: 10,
    });
    expect(thread.map((m) => m.body?.markdown)).toEqual(["root", "in 1", "in 2"]);
  });
});
