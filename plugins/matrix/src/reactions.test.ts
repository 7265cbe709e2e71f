/**
 * [H23] reactions on Matrix: `m.reaction` annotations sent by txnId (a lost answer replayed →
 * one reaction), removed by redacting the bot's reaction found through the relations API (a
 * repeated remove is success, never a toggle). Real matrix-js-sdk against the fake homeserver.
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { eventRef } from "./send.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeHomeserver.ts";

const reactionsOf = (b: Awaited<ReturnType<typeof openBench>>, eventId: string) =>
  b.fake.rooms.events.filter(
    (e) =>
      e.type === "m.reaction" &&
      e.sender === FAKE_BOT.userId &&
      !e.redactedBy &&
      (e.content["m.relates_to"] as { event_id?: string } | undefined)?.event_id === eventId,
  );

describe("H23 · Matrix reactions", () => {
  it("H23 react: an m.annotation with the emoji as key; the add's answer lost (reset after accept) → the txnId replay leaves one reaction", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const question = b.fake.post({ room: roomId, sender: ALICE.userId, body: "deploy?" });
    b.fake.server.faults.failNext({ kind: "reset_after_accept" }, { op: "react" });
    await b.runtime.react({
      channel: "matrix",
      accountId: "main",
      target,
      messageId: eventRef(roomId, question.event_id),
      emoji: "👀",
      idempotencyKey: "turn-1:eyes",
    });
    const reactions = reactionsOf(b, question.event_id);
    expect(reactions).toHaveLength(1);
    // The fault hit the reaction (its answer was lost), and the replay did not add a second one.
    expect(b.fake.server.calls.map((c) => [c.op, c.outcome])).toContainEqual([
      "react",
      "reset_after_accept",
    ]);
    expect(reactions[0]?.content["m.relates_to"]).toEqual({
      rel_type: "m.annotation",
      event_id: question.event_id,
      key: "👀",
    });
  });

  it("H23 unreact: remove redacts the bot's reaction with that key (another emoji stays); a repeated remove is success", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const question = b.fake.post({ room: roomId, sender: ALICE.userId, body: "deploy?" });
    const base = {
      channel: "matrix",
      accountId: "main",
      target,
      messageId: eventRef(roomId, question.event_id),
    };
    await b.runtime.react({ ...base, emoji: "👀", idempotencyKey: "k:add-eyes" });
    await b.runtime.react({ ...base, emoji: "✅", idempotencyKey: "k:add-check" });
    expect(reactionsOf(b, question.event_id)).toHaveLength(2);
    await b.runtime.react({ ...base, emoji: "👀", remove: true, idempotencyKey: "k:rm-eyes" });
    const left = reactionsOf(b, question.event_id);
    expect(left.map((e) => (e.content["m.relates_to"] as { key: string }).key)).toEqual(["✅"]);
    const redactions = b.fake.rooms.events.filter((e) => e.type === "m.room.redaction").length;
    await b.runtime.react({
      ...base,
      emoji: "👀",
      remove: true,
      idempotencyKey: "k:rm-eyes-again",
    });
    expect(b.fake.rooms.events.filter((e) => e.type === "m.room.redaction")).toHaveLength(
      redactions,
    );
    expect(reactionsOf(b, question.event_id)).toHaveLength(1);
  });

  it("H23 reactions in: Alice's m.reaction over /sync is one InboundReaction on the annotated event (a redelivery is a duplicate); the bot's own reaction is ignored", async () => {
    const b = await openBench();
    const { roomId, target } = b.room();
    const sent = await b.runtime.send(b.say(target, "deployed"));
    const botEvent = String(sent.parts[0]?.platformMessageId).split(":$")[1];
    const annotated = `$${botEvent}`;
    const reaction = b.fake.rooms.append({
      room_id: roomId,
      type: "m.reaction",
      sender: ALICE.userId,
      content: { "m.relates_to": { rel_type: "m.annotation", event_id: annotated, key: "🎉" } },
    });
    await b.runtime.react({
      channel: "matrix",
      accountId: "main",
      target,
      messageId: eventRef(roomId, annotated),
      emoji: "👀",
      idempotencyKey: "own",
    });
    await b.startReceiver();
    await eventually(
      () => b.outcomes.filter((o) => o.status === "interaction"),
      (o) => o.length === 1,
      { what: "the reaction handed over" },
    );
    b.fake.rooms.redeliver(reaction.event_id);
    await eventually(
      () => b.outcomes.filter((o) => o.status === "duplicate"),
      (o) => o.length >= 1,
      { what: "the redelivery deduped" },
    );
    const interactions = b.outcomes.filter((o) => o.status === "interaction") as Array<{
      interaction?: Record<string, unknown>;
    }>;
    expect(interactions).toHaveLength(1);
    expect(interactions[0]?.interaction).toMatchObject({
      kind: "reaction",
      emoji: "🎉",
      removed: false,
      messageId: eventRef(roomId, annotated),
      sender: { id: ALICE.userId },
    });
    expect(b.handled).toEqual([]);
  });
});
