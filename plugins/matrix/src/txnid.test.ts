/**
 * Transaction ids are unique across processes and stores: an intent key that repeats in a new
 * store (a message id from a counter that restarted, a wiped `.herald/state.db`, the n-th edit
 * counted again from 1) names a different unit and must not get another unit's event back from
 * the homeserver's 24 h txnId cache — while a replay of the same intent keeps its txnId (C30).
 */
import { describe, expect, it } from "vitest";
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
