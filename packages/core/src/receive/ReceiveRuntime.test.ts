import { describe, expect, it } from "vitest";
import { ReceiveHandlerError, ReceiveValidationError } from "./errors.ts";
import { createReceiveRuntime } from "./ReceiveRuntime.ts";
import { deferred, settle } from "./testing/deferred.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";

const tg = { channel: "telegram", accountId: "main" };

describe("receive lifecycle", () => {
  it("processes a new message once and remembers it as done for at least 24 h", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    const { ack, done } = bench.runtime.receive(teleUpdate(1, { text: "hi" }), tg);
    expect(await done).toMatchObject({ status: "processed", key: { eventId: "1:1" } });
    expect(await ack).toEqual({ kind: "accept" });
    expect(bench.processed.map((p) => p.text)).toEqual(["hi"]);
    const record = await bench.store.getDedupe({
      channel: "telegram",
      accountId: "main",
      eventId: "1:1",
    });
    expect(record?.status).toBe("done");
    expect((record?.expiresAt ?? 0) - bench.clock.now()).toBeGreaterThanOrEqual(86_400_000);
  });

  it("answers a redelivery of a processed message without processing it again", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    await bench.runtime.receive(teleUpdate(1), tg).done;
    // Same message, new update id (a re-sent delivery): the identity is the message, not the update.
    const again = bench.runtime.receive({ ...teleUpdate(1), update_id: 77 }, tg);
    expect(await again.done).toMatchObject({ status: "duplicate" });
    expect(await again.ack).toEqual({ kind: "accept" });
    expect(bench.processed).toHaveLength(1);
  });

  it("dead-letters a malformed payload with a typed error naming the field path", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    const bad = teleUpdate(5) as unknown as { message: { chat: { id: unknown } } };
    bad.message.chat.id = "not-a-number";
    const { ack, done } = bench.runtime.receive(bad, tg);
    const outcome = await done;
    expect(outcome.status).toBe("dead_lettered");
    if (outcome.status !== "dead_lettered") return;
    expect(outcome.error).toBeInstanceOf(ReceiveValidationError);
    expect(outcome.error.message).toMatch(/telegram payload invalid at message\.chat\.id/);
    expect(await ack).toEqual({ kind: "accept" });
    const [letter] = await bench.runtime.deadLetters.list();
    expect(letter).toMatchObject({
      id: outcome.deadLetterId,
      channel: "telegram",
      raw: bad,
      error: { code: "HERALD_RECEIVE_INVALID_PAYLOAD", path: "message.chat.id" },
    });
    expect(bench.processed).toEqual([]);
  });

  it("dead-letters an event for a channel without an adapter", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    const outcome = await bench.runtime.receive({ any: 1 }, { channel: "matrix" }).done;
    expect(outcome).toMatchObject({ status: "dead_lettered" });
    const [letter] = await bench.runtime.deadLetters.list({ channel: "matrix" });
    expect(letter?.error.code).toBe("HERALD_UNKNOWN_CHANNEL");
  });

  it("drops bot-authored messages unless allowBots, and room messages without a mention when required", async () => {
    const strict = receiveBench([createFakeTelegramAdapter()], { requireMention: true });
    const fromBot = await strict.runtime.receive(
      teleUpdate(1, { chatId: -5, isBot: true, fromId: 7 }),
      tg,
    ).done;
    const noMention = await strict.runtime.receive(
      teleUpdate(2, { chatId: -5, text: "hello all" }),
      tg,
    ).done;
    const mention = await strict.runtime.receive(
      teleUpdate(3, { chatId: -5, text: "@herald_bot hi" }),
      tg,
    ).done;
    const dm = await strict.runtime.receive(
      teleUpdate(4, { chatId: 9, text: "no mention in DM" }),
      tg,
    ).done;
    expect(
      [fromBot, noMention, mention, dm].map((o) => (o.status === "dropped" ? o.reason : o.status)),
    ).toEqual(["bot_author", "mention_required", "processed", "processed"]);
    const open = receiveBench([createFakeTelegramAdapter()], { allowBots: true });
    expect(
      (await open.runtime.receive(teleUpdate(1, { chatId: -5, isBot: true, fromId: 7 }), tg).done)
        .status,
    ).toBe("processed");
  });

  it("answers the platform after the record under `after-record`, before the handler finishes", async () => {
    const gate = deferred();
    const bench = receiveBench(
      [createFakeTelegramAdapter({ ackPolicy: { kind: "after-record" } })],
      {
        handler: () => gate.promise,
      },
    );
    const ticket = bench.runtime.receive(teleUpdate(1), tg);
    expect(await ticket.ack).toEqual({ kind: "accept" });
    expect(bench.processed).toEqual([]);
    gate.resolve();
    expect((await ticket.done).status).toBe("processed");
  });

  it("answers under `after-durable-send` when the handler says its replies are durable", async () => {
    const gate = deferred();
    let acked = false;
    const bench = receiveBench([createFakeTelegramAdapter()], {
      handler: async (ctx) => {
        await settle();
        expect(acked).toBe(false);
        ctx.repliesDurable();
        await gate.promise;
      },
    });
    const ticket = bench.runtime.receive(teleUpdate(1), tg);
    void ticket.ack.then(() => {
      acked = true;
    });
    await ticket.ack;
    expect(bench.processed).toEqual([]);
    gate.resolve();
    expect((await ticket.done).status).toBe("processed");
  });

  it("hands the ack to the receiver under `manual`", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    const ticket = bench.runtime.receive(teleUpdate(1), { ...tg, ackPolicy: { kind: "manual" } });
    expect(await ticket.ack).toEqual({ kind: "manual" });
    expect((await ticket.done).status).toBe("processed");
  });

  it("releases the lease when the handler throws, asks for a redelivery, and processes that once", async () => {
    let calls = 0;
    const bench = receiveBench([createFakeTelegramAdapter()], {
      handler: () => {
        calls += 1;
        if (calls === 1) throw new Error("model timeout");
      },
    });
    const first = bench.runtime.receive(teleUpdate(1), tg);
    const failed = await first.done;
    expect(failed).toMatchObject({ status: "failed", acked: false, recorded: true });
    if (failed.status === "failed") expect(failed.error).toBeInstanceOf(ReceiveHandlerError);
    expect(await first.ack).toMatchObject({ kind: "retry", reason: "failed" });
    expect(
      await bench.store.getDedupe({ channel: "telegram", accountId: "main", eventId: "1:1" }),
    ).toBeUndefined();
    expect((await bench.runtime.receive(teleUpdate(1), tg).done).status).toBe("processed");
    expect(bench.processed).toHaveLength(1);
  });

  it("takes back a lease its own instance id left behind after a crash, but not another's before it expires", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()], { instanceId: "pod-a" });
    const key = { channel: "telegram", accountId: "main", eventId: "1:1" };
    const now = bench.clock.now();
    await bench.store.acquireDedupe(key, { owner: "pod-a", now, leaseMs: 30_000 });
    expect((await bench.runtime.receive(teleUpdate(1), tg).done).status).toBe("processed");

    const other = { ...key, eventId: "1:2" };
    await bench.store.acquireDedupe(other, { owner: "pod-b", now, leaseMs: 30_000 });
    const busy = bench.runtime.receive(teleUpdate(2), tg);
    expect(await busy.done).toMatchObject({ status: "busy", retryAfterMs: 30_000 });
    expect(await busy.ack).toEqual({
      kind: "retry",
      reason: "in_flight_elsewhere",
      retryAfterMs: 30_000,
    });
    bench.clock.advance(30_000);
    expect((await bench.runtime.receive(teleUpdate(2), tg).done).status).toBe("processed");
  });

  it("fails a dispatch without a handler and leaves the message for a redelivery", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()]);
    const runtime = createReceiveRuntime({
      store: bench.store,
      adapters: new Map([["telegram", createFakeTelegramAdapter()]]),
    });
    const outcome = await runtime.receive(teleUpdate(1), tg).done;
    expect(outcome).toMatchObject({
      status: "failed",
      error: { code: "HERALD_RECEIVE_NO_HANDLER" },
    });
    runtime.onMessage(() => {});
    expect((await runtime.receive(teleUpdate(1), tg).done).status).toBe("processed");
  });
});
