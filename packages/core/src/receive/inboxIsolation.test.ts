/**
 * [H20] item 2 — one bad inbound payload never disables inbound recovery. Records are
 * isolated: a record whose message cannot be stored as JSON (a BigInt, a cycle) or that is
 * damaged is dead-lettered with its raw payload (replayable), and every other record still
 * recovers; a payload that only the raw part cannot keep exactly (a BigInt) still recovers.
 */
import { describe, expect, it } from "vitest";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";
import type { ReceiveChannelAdapter } from "./types.ts";

const tg = { channel: "telegram", accountId: "main" };
const immediate = createFakeTelegramAdapter({
  ackPolicy: { kind: "immediate", reason: "webhook-timeout" },
});

/** Like `immediate`, but the message carries its own copy of the payload (not the payload). */
const copying: ReceiveChannelAdapter = {
  ...immediate,
  receive: {
    ...(immediate.receive as NonNullable<ReceiveChannelAdapter["receive"]>),
    async normalize(raw, ctx) {
      const m = await (
        immediate.receive as NonNullable<ReceiveChannelAdapter["receive"]>
      ).normalize(raw, ctx);
      return { ...(m as object), raw: { copy: raw } } as never;
    },
  },
};

/** A handler failing the first run of each message (after the platform was answered). */
function failingOnce() {
  const runs = new Map<string, number>();
  return (ctx: { id: string }) => {
    const n = (runs.get(ctx.id) ?? 0) + 1;
    runs.set(ctx.id, n);
    if (n === 1) throw new Error("crashed mid-turn");
  };
}

describe("inbox records are isolated", () => {
  it("dead-letters a message holding a BigInt or a cycle with its raw payload; the others recover", async () => {
    let fixed = false;
    const fail = failingOnce();
    const bench = receiveBench([copying], {
      handler: (ctx) => {
        if (!fixed) fail(ctx);
      },
    });
    const big = { ...teleUpdate(1, { text: "big" }), extra: 2n ** 70n };
    const cyclic: Record<string, unknown> = { ...teleUpdate(2, { text: "cycle" }) };
    cyclic.self = cyclic;
    const good = teleUpdate(3, { text: "fine" });
    for (const raw of [big, cyclic, good]) {
      const t = bench.runtime.receive(raw, tg);
      expect(await t.ack).toEqual({ kind: "accept" });
      expect((await t.done).status).toBe("failed"); // answered, recorded, left to recovery
    }

    const report = await bench.runtime.recover();
    expect(report).toMatchObject({ processed: 1, deadLettered: 2 });
    expect(bench.processed.map((p) => p.text)).toEqual(["fine"]);
    const letters = await bench.runtime.deadLetters.list();
    expect(letters.map((l) => l.error.code)).toEqual([
      "HERALD_RECEIVE_RECORD_UNREADABLE",
      "HERALD_RECEIVE_RECORD_UNREADABLE",
    ]);
    expect(letters.map((l) => l.error.message).join("\n")).toMatch(
      /record\.message could not be stored as JSON/,
    );
    // The raw payload is kept (a BigInt as its digits, a cycle cut): the letter can be replayed.
    const bigLetter = letters.find((l) => (l.raw as { update_id?: number }).update_id === 1);
    expect(bigLetter?.raw).toMatchObject({
      update_id: 1,
      message: { text: "big" },
      extra: Number(2n ** 70n), // the digits read back as a JSON number
    });
    const cycleLetter = letters.find((l) => (l.raw as { update_id?: number }).update_id === 2);
    expect(cycleLetter?.raw).toMatchObject({ update_id: 2, self: "[Circular]" });

    // Nothing is left behind the cursor: the next pass is empty.
    expect(await bench.runtime.recover()).toMatchObject({ redispatched: 0, deadLettered: 0 });
    fixed = true;
    for (const l of letters) {
      expect((await bench.runtime.deadLetters.replay(l.id)).status).toBe("processed");
    }
    expect(bench.processed.map((p) => p.text).sort()).toEqual(["big", "cycle", "fine"]);
  });

  it("a payload holding a BigInt, kept by the message as the payload itself, still recovers", async () => {
    const bench = receiveBench([immediate], { handler: failingOnce() });
    const t = bench.runtime.receive({ ...teleUpdate(7, { text: "big id" }), extra: 10n }, tg);
    expect((await t.done).status).toBe("failed");
    expect(await bench.runtime.recover()).toMatchObject({ processed: 1, deadLettered: 0 });
    expect(bench.processed.map((p) => p.text)).toEqual(["big id"]);
  });

  it("a 10,000-deep field neither blocks recovery nor is lost", async () => {
    const bench = receiveBench([copying], { handler: failingOnce() });
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 10_000; i++) {
      const next = {};
      deep.d = next;
      deep = next;
    }
    for (const raw of [
      { ...teleUpdate(1, { text: "deep" }), root },
      teleUpdate(2, { text: "fine" }),
    ]) {
      expect((await bench.runtime.receive(raw, tg).done).status).toBe("failed");
    }
    const report = await bench.runtime.recover();
    const letters = await bench.runtime.deadLetters.list();
    expect(bench.processed.map((p) => p.text)).toContain("fine");
    // The deep one was either recovered or dead-lettered, never stranded.
    expect(report.processed + report.deadLettered).toBe(2);
    expect(bench.processed.length + letters.length).toBe(2);
  });

  it("a damaged record (as an older herald wrote it for a bad payload) is dead-lettered; later ones recover", async () => {
    const bench = receiveBench([immediate], { handler: failingOnce() });
    await bench.store.appendLedger([
      {
        conversation: "herald.inbox/telegram",
        type: "inbound/recorded",
        at: 1,
        data: {
          unserializable: true,
          type: "object",
          preview: "[object Object]",
          reason: "Do not know how to serialize a BigInt",
        },
      },
    ]);
    expect((await bench.runtime.receive(teleUpdate(5, { text: "after" }), tg).done).status).toBe(
      "failed",
    );
    expect(await bench.runtime.recover()).toMatchObject({ processed: 1, deadLettered: 1 });
    expect(bench.processed.map((p) => p.text)).toEqual(["after"]);
    const [letter] = await bench.runtime.deadLetters.list();
    expect(letter?.error).toMatchObject({ code: "HERALD_RECEIVE_RECORD_UNREADABLE" });
    expect(letter?.error.message).toMatch(
      /could not be stored as JSON \(Do not know how to serialize a BigInt\)/,
    );
    expect(letter?.raw).toMatchObject({ preview: "[object Object]" });
  });
});
