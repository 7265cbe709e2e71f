/**
 * Transaction ids are unique across processes and stores: an intent key that repeats in a new
 * store (a message id from a counter that restarted, a wiped `.herald/state.db`, the n-th edit
 * counted again from 1) names a different unit and must not get another unit's event back from
 * the homeserver's 24 h txnId cache — while a replay of the same intent keeps its txnId (C30).
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { eventRef } from "./send.ts";
import { openBench } from "./testing/bench.ts";

const messagesIn = (b: Awaited<ReturnType<typeof openBench>>, roomId: string) =>
  b.fake.rooms.events.filter((e) => e.room_id === roomId && e.type === "m.room.message");

describe("txnIds across stores", () => {
  it("the same idempotency key in a fresh store with other text is a new event, not the old one", async () => {
    const first = await openBench({ closeFake: false });
    const { roomId, target } = first.room();
    await first.runtime.enqueue(first.say(target, "monday's report"), {
      idempotencyKey: "report-1",
    });
    expect((await first.settled("report-1")).status).toBe("sent");
    await first.close();
    // A new process with a new store (the counter behind the key restarted).
    const second = await openBench({ on: first.fake });
    await second.runtime.enqueue(second.say(target, "tuesday's report"), {
      idempotencyKey: "report-1",
    });
    const intent = await second.settled("report-1");
    expect(intent.status).toBe("sent");
    expect(messagesIn(second, roomId).map((e) => e.content.body)).toEqual([
      "monday's report",
      "tuesday's report",
    ]);
    await second.fake.close();
  });

  it("the first edit counted again in a fresh store is a new replacement, shown; not the old edit", async () => {
    const first = await openBench({ closeFake: false });
    const { roomId, target } = first.room();
    const sent = await first.runtime.send(first.say(target, "v1"));
    await first.runtime.edit(sent, first.say(target, "v2"));
    await first.close();
    const second = await openBench({ on: first.fake });
    await second.runtime.edit(sent, second.say(target, "v3"));
    expect(second.fake.visible(roomId).map((m) => m.text)).toEqual(["v3"]);
    await second.fake.close();
  });
});

describe("C39 · own events found by unsigned.transaction_id", () => {
  it("an in-doubt send the homeserver never stored (a 500), on a Dendrite: the lookup reaches the room's start, proves it absent, and the replay sends it once", async () => {
    const b = await openBench({
      fake: { kind: "dendrite" },
      config: { homeserver: { kind: "dendrite" }, requestTimeoutMs: 200 },
    });
    const { roomId, target } = b.room();
    b.fake.failNext({ kind: "status", status: 500, code: "M_UNKNOWN" }, { op: "send" });
    await b.runtime.enqueue(b.say(target, "sent once after a lookup"), { idempotencyKey: "c39-a" });
    const intent = await b.settled("c39-a");
    expect(intent.status).toBe("sent");
    expect(messagesIn(b, roomId).map((e) => e.content.body)).toEqual(["sent once after a lookup"]);
    // The replay came only after a lookup of the room (a reconcile, then the retry's own look).
    expect(b.fake.server.calls.filter((c) => c.op === "messages").length).toBeGreaterThanOrEqual(1);
  });

  it("an in-doubt send stored but answered 502 by a proxy, on a Dendrite that then restarted: committed with the event the lookup found, not sent again", async () => {
    const b = await openBench({
      fake: { kind: "dendrite" },
      config: { homeserver: { kind: "dendrite" }, requestTimeoutMs: 200 },
    });
    const { roomId, target } = b.room();
    b.fake.afterApply.push({
      status: 502,
      body: "<html>Bad Gateway</html>",
      contentType: "text/html",
    });
    const restarted = b.fake.server.calls.length;
    await b.runtime.enqueue(b.say(target, "stored once"), { idempotencyKey: "c39-b" });
    // The homeserver restarts as soon as it stored the event: the txnId is gone.
    await eventually(
      () => b.fake.server.calls.length,
      (n) => n > restarted,
      { what: "the send to reach the homeserver" },
    );
    b.fake.restart();
    const intent = await b.settled("c39-b");
    const shown = messagesIn(b, roomId);
    expect(shown.map((e) => e.content.body)).toEqual(["stored once"]);
    expect(intent.status).toBe("sent");
    expect(intent.receipt?.platformMessageIds).toEqual([
      eventRef(roomId, shown[0]?.event_id as string),
    ]);
  });
});
