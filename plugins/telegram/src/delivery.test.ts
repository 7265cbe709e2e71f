/**
 * Delivery outcomes on Telegram through herald's durable queue: unknown sends (C01), rate
 * limits on media in a topic (C05), no formatting fallback on a 429 (C18).
 */
import { eventually, isHeldForOperator } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { FAKE_BOT } from "./testing/FakeTelegram.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("C01 · unknown after send", () => {
  it("the fake stores message 500 and resets the socket: one message, unknown_after_send, held, never resent", async () => {
    const b = await openBench({ fake: { firstMessageId: 500 } });
    const { chat, target } = b.dm();
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "landed once"), { idempotencyKey: "c01" });
    const intent = await b.settled("c01");
    expect(intent.status).toBe("unknown_after_send");
    expect(isHeldForOperator(intent)).toBe(true);
    expect(intent.failure).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    expect(intent.failure?.message).toContain("held for an operator");
    await pause(300);
    expect(b.fake.messages(chat.id).map((m) => [m.id, m.text])).toEqual([["500", "landed once"]]);
  });

  it("control: ECONNREFUSED on attempt 1, success on attempt 2 — one retry, one message", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const restore = await b.fake.faults.refuseConnections();
    await b.runtime.enqueue(b.message(target, "after the outage"), {
      idempotencyKey: "c01-control",
    });
    const failed = await eventually(
      () => b.intent("c01-control"),
      (i) => (i?.attempt ?? 0) >= 1 && i?.status === "pending",
      { what: "a failed first attempt" },
    );
    expect(failed?.failure).toMatchObject({ kind: "transient", evidence: "not_dispatched" });
    await restore();
    const intent = await b.settled("c01-control");
    expect(intent).toMatchObject({ status: "sent", attempt: 2 });
    expect(b.fake.messages(chat.id).map((m) => m.text)).toEqual(["after the outage"]);
  });

  it("with unknownSendPolicy at_least_once the send is replayed: the chat may show it twice", async () => {
    const b = await openBench({ config: { unknownSendPolicy: "at_least_once" } });
    const { chat, target } = b.dm();
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "maybe twice"), { idempotencyKey: "alo" });
    const intent = await b.settled("alo");
    expect(intent.status).toBe("sent");
    const shown = b.fake.messages(chat.id);
    expect(shown.map((m) => m.text)).toEqual(["maybe twice", "maybe twice"]);
    expect(intent.receipt?.platformMessageIds).toEqual([`${chat.id}:${shown[1]?.id}`]);
  });

  it("a reset before Telegram stored anything is held too: herald cannot tell it from C01", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    b.fake.failNext({ kind: "reset_before_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "lost"), { idempotencyKey: "lost" });
    expect(isHeldForOperator(await b.settled("lost"))).toBe(true);
    expect(b.fake.messages(chat.id)).toEqual([]);
  });
});

describe("C05 · 429 on a voice note in topic 42", () => {
  it("waits retry_after 17 s in the durable queue, keeps other chats flowing, then sends one voice note", async () => {
    let skewMs = 0;
    const clock = () => Date.now() + skewMs;
    const b = await openBench({ clock });
    const { chat, target } = b.forum();
    b.fake.createTopic(chat.id, "Voice", 42);
    const topic = { ...target, kind: "thread" as const, parentId: target.id, threadId: "42" };
    b.fake.failNext({ kind: "rate_limit", retryAfterMs: 17_000, via: "body" }, { op: "send" });
    await b.runtime.enqueue(
      b.message(topic, "", { attachments: [{ kind: "voice", platformFileId: "AwAD-voice" }] }),
      { idempotencyKey: "voice" },
    );
    const waiting = await eventually(
      () => b.intent("voice"),
      (i) => i?.status === "pending" && (i.attempt ?? 0) === 1,
      { what: "the throttled attempt" },
    );
    expect(waiting?.failure).toMatchObject({ kind: "rate_limit", retryAfterMs: 17_000 });
    const wait = (waiting?.nextAttemptAt ?? 0) - clock();
    expect(wait).toBeGreaterThan(15_000);
    expect(wait).toBeLessThanOrEqual(17_000);

    const other = b.dm();
    await b.runtime.send(b.message(other.target, "other chats keep flowing"));
    // Sent while the voice note still waits its 17 s (an ordering, not a duration).
    expect((await b.intent("voice"))?.status).toBe("pending");

    skewMs += 17_000;
    const sent = await b.settled("voice");
    expect(sent).toMatchObject({ status: "sent", attempt: 2 });
    const shown = b.fake.messages(chat.id, { authorId: FAKE_BOT.id });
    expect(shown.map((m) => m.thread)).toEqual(["42"]);
    expect(b.fake.message(shown[0]?.id as string)).toMatchObject({
      voice: { file_id: "AwAD-voice" },
      message_thread_id: 42,
    });
  });
});

describe("declared rate limits", () => {
  it("paces messages to one chat at Telegram's one per second", async () => {
    const b = await openBench({
      config: { rateLimits: { perBotPerSecond: 30, perChatPerSecond: 1, perGroupPerMinute: 20 } },
    });
    const { chat, target } = b.dm();
    await b.runtime.send(b.message(target, "one"));
    await b.runtime.send(b.message(target, "two"));
    const [one, two] = b.fake.messages(chat.id);
    expect((two?.createdAt ?? 0) - (one?.createdAt ?? 0)).toBeGreaterThanOrEqual(990);
  });
});

describe("C18 · formatting never falls back", () => {
  it("a 429 is waited out and the same text + entities land, never a plain or escaped fallback", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    b.fake.failNext({ kind: "rate_limit", retryAfterMs: 1_000, via: "body" }, { op: "send" });
    await b.runtime.send(b.message(target, "Sure! Step 1 - **done**."));
    const shown = b.fake.messages(chat.id);
    expect(shown.map((m) => m.text)).toEqual(["Sure! Step 1 - done."]);
    expect(b.fake.message(shown[0]?.id as string)).toMatchObject({
      entities: [{ type: "bold", offset: 15, length: 4 }],
    });
  });
});
