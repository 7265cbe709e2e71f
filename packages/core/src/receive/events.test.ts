/**
 * `normalize` answering `ignore(reason)` or a typed event (member joined, message deleted), and
 * the per-source ack deadline (Slack answers within 3 s).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { InboundEvent } from "../adapter/receive.ts";
import { deferred } from "./testing/deferred.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";
import type { ReceiveChannelAdapter } from "./types.ts";
import { ignore } from "./validate.ts";

type Raw =
  | { type: "join"; chat: string; user: string; at: number }
  | { type: "delete"; chat: string; message: string }
  | { type: "pin" }
  | { type: "bogus" };

/** An adapter whose payloads are membership / delete / service events. */
const eventsAdapter: ReceiveChannelAdapter = {
  id: "chat",
  receive: {
    normalize(raw) {
      const r = raw as Raw;
      if (r.type === "pin") return ignore("service_message", "pinned_message");
      if (r.type === "join")
        return {
          kind: "event",
          type: "member_joined",
          id: `join:${r.chat}:${r.user}:${r.at}`,
          channel: "chat",
          target: { kind: "group", id: r.chat },
          members: [{ id: r.user }],
          timestamp: r.at,
        };
      if (r.type === "delete")
        return {
          kind: "event",
          type: "message_deleted",
          id: `delete:${r.chat}:${r.message}`,
          channel: "chat",
          target: { kind: "group", id: r.chat },
          platformMessageId: r.message,
        };
      return {
        kind: "event",
        type: "exploded",
        id: "x",
        channel: "chat",
      } as unknown as InboundEvent;
    },
  },
};

describe("inbound events", () => {
  it("an ignored event is acked, counted as `ignored` with its reason, and never dead-lettered", async () => {
    const b = receiveBench([eventsAdapter]);
    const ticket = b.runtime.receive({ type: "pin" }, { channel: "chat" });
    expect(await ticket.ack).toEqual({ kind: "accept" });
    expect(await ticket.done).toEqual({
      status: "ignored",
      reason: "service_message",
      detail: "pinned_message",
    });
    expect(await b.runtime.deadLetters.list()).toEqual([]);
    expect(b.processed).toEqual([]);
  });

  it("hands a typed event to the event handler once; a redelivery is a duplicate and starts no turn", async () => {
    const seen: InboundEvent[] = [];
    const b = receiveBench([eventsAdapter], { eventHandler: (e) => void seen.push(e) });
    const join = { type: "join", chat: "g1", user: "u7", at: 1_700_000_000_000 };
    const first = b.runtime.receive(join, { channel: "chat", accountId: "main" });
    expect(await first.done).toMatchObject({ status: "event", event: { type: "member_joined" } });
    expect(await first.ack).toEqual({ kind: "accept" });
    const again = b.runtime.receive(join, { channel: "chat", accountId: "main" });
    expect(await again.done).toMatchObject({ status: "duplicate" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ members: [{ id: "u7" }], accountId: "main" });
    expect(b.processed).toEqual([]); // no turn
  });

  it("a throwing event handler asks for redelivery, and the redelivery runs it again", async () => {
    let fail = true;
    const seen: string[] = [];
    const b = receiveBench([eventsAdapter], {
      eventHandler: (e) => {
        if (fail) {
          fail = false;
          throw new Error("db down");
        }
        seen.push(e.platformMessageId ?? "");
      },
    });
    const del = { type: "delete", chat: "g1", message: "m5" };
    const first = b.runtime.receive(del, { channel: "chat" });
    expect(await first.ack).toEqual({ kind: "retry", reason: "failed" });
    expect((await first.done).status).toBe("failed");
    const second = b.runtime.receive(del, { channel: "chat" });
    expect((await second.done).status).toBe("event");
    expect(seen).toEqual(["m5"]);
  });

  it("dead-letters an event of an unknown type with the field path", async () => {
    const b = receiveBench([eventsAdapter]);
    const outcome = await b.runtime.receive({ type: "bogus" }, { channel: "chat" }).done;
    expect(outcome.status).toBe("dead_lettered");
    const [letter] = await b.runtime.deadLetters.list();
    expect(letter?.error.path).toBe("normalized.type");
  });
});

describe("ack deadline", () => {
  afterEach(() => vi.useRealTimers());

  it("answers `retry` (deadline) when the handler outlives the source's deadline; the redelivery is answered once it is done", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const gate = deferred();
    const texts: string[] = [];
    const b = receiveBench([createFakeTelegramAdapter()], {
      handler: async (ctx) => {
        texts.push(ctx.input.body?.markdown ?? "");
        await gate.promise;
      },
    });
    const update = teleUpdate(7, { text: "deploy?" });
    const source = { channel: "telegram", ackDeadlineMs: 3_000 };
    const first = b.runtime.receive(update, source);
    let answered: unknown;
    void first.ack.then((a) => {
      answered = a;
    });
    await vi.advanceTimersByTimeAsync(2_999);
    expect(answered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answered).toEqual({ kind: "retry", reason: "deadline" });
    // The platform redelivers; it waits on the running one.
    const redelivery = b.runtime.receive(update, source);
    gate.resolve();
    expect((await first.done).status).toBe("processed");
    expect(await redelivery.ack).toEqual({ kind: "accept" });
    expect((await redelivery.done).status).toBe("duplicate");
    expect(texts).toEqual(["deploy?"]);
  });

  it("does not fire once the ack was given in time", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const b = receiveBench([createFakeTelegramAdapter()]);
    const ticket = b.runtime.receive(teleUpdate(8), { channel: "telegram", ackDeadlineMs: 3_000 });
    expect(await ticket.ack).toEqual({ kind: "accept" });
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await ticket.done).status).toBe("processed");
  });
});
