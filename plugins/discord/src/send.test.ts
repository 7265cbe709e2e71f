/**
 * Sends on Discord through herald's durable queue, asserted on the fake's visible state: the
 * enforced nonce (exactly once within the window, 10008 after a deletion, held past the
 * window), replies to a deleted message (C28), a 429 in the middle of a reply (C27), threads
 * started from an anchor, and header feedback to the scheduler.
 */
import {
  eventually,
  isHeldForOperator,
  type MessageRuntime,
  TEST_RUN_DELIVERY,
} from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { channelOf, NONCE_MAX_LENGTH, nonceOf } from "./send.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE } from "./testing/FakeDiscord.ts";

const nonces = (b: Awaited<ReturnType<typeof openBench>>) =>
  b.fake.requests.filter((r) => r.method === "POST").map((r) => r.body.nonce);

describe("nonce", () => {
  it("is at most 25 characters, the same for the same unit key, different across units", () => {
    const a = nonceOf("intent-1#0");
    expect(a.length).toBeLessThanOrEqual(NONCE_MAX_LENGTH);
    expect(a).toMatch(/^[0-9A-Za-z]+$/);
    expect(nonceOf("intent-1#0")).toBe(a);
    expect(nonceOf("intent-1#1")).not.toBe(a);
  });

  it("a reset after Discord stored the message is replayed with the same nonce: one message, sent", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "exactly once"), { idempotencyKey: "once" });
    const intent = await b.settled("once");
    expect(intent.status).toBe("sent");
    const shown = b.fake.messages(channel.id);
    expect(shown.map((m) => m.text)).toEqual(["exactly once"]);
    expect(intent.receipt?.platformMessageIds).toEqual([`${channel.id}:${shown[0]?.id}`]);
    const sent = nonces(b);
    expect(sent.length).toBe(2);
    expect(new Set(sent).size).toBe(1);
    expect(b.fake.requests.every((r) => r.body.enforce_nonce === true)).toBe(true);
  });

  it("a replay after the original was deleted answers 10008: counted as sent, nothing re-created", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    // Someone deletes the message before herald's replay arrives.
    const off = b.fake.onMessage((e) => {
      if (e.type === "create") queueMicrotask(() => b.fake.delete(e.message.json.id as string));
    });
    await b.runtime.enqueue(b.message(target, "deleted meanwhile"), { idempotencyKey: "gone" });
    const intent = await b.settled("gone");
    off();
    expect(intent.status).toBe("sent");
    expect(b.fake.messages(channel.id)).toEqual([]);
    expect(b.fake.state.messages({ chat: channel.id, includeDeleted: true }).length).toBe(1);
  });

  it("past Discord's window the key is not trusted: held for an operator, never a second message", async () => {
    let skewMs = 0;
    const b = await openBench({
      clock: () => Date.now() + skewMs,
      config: { requestTimeoutMs: 300 },
    });
    const { channel, target } = b.channel();
    b.fake.failNext({ kind: "delay", delayMs: 1_000 }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "late"), { idempotencyKey: "late" });
    await eventually(
      () => b.intent("late"),
      (i) => i?.status === "sending",
      { what: "dispatch" },
    );
    // The attempt times out; by the time herald looks again, Discord's window has passed.
    skewMs = 10 * 60_000;
    const intent = await b.settled("late");
    expect(isHeldForOperator(intent)).toBe(true);
    await eventually(
      () => b.fake.messages(channel.id),
      (m) => m.length > 0,
      { what: "the late store" },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual(["late"]);
  });
});

describe("C28 · reply target deleted", () => {
  it("three chunks, the first referencing the deleted message with fail_if_not_exists false: three messages", async () => {
    const b = await openBench({ config: { maxTextLength: 30 } });
    const { channel, target } = b.channel();
    const { message: inbound } = b.fake.post({
      channelId: channel.id,
      author: ALICE,
      text: "question",
    });
    const inboundId = inbound.json.id as string;
    b.fake.delete(inboundId);
    const text = "first part of the answer. second part of the answer. third part here.";
    await b.runtime.send(
      b.message(target, text, {
        relation: { kind: "reply", replyToId: `${channel.id}:${inboundId}` },
      }),
    );
    const shown = b.fake.messages(channel.id);
    expect(shown.length).toBe(3);
    const posts = b.fake.requests.filter((r) => r.method === "POST");
    expect(posts[0]?.body.message_reference).toEqual({
      message_id: inboundId,
      channel_id: channel.id,
      fail_if_not_exists: false,
    });
    expect(posts.slice(1).map((p) => p.body.message_reference)).toEqual([undefined, undefined]);
  });

  it("a 50013 Missing Permissions does not take the fallback: it stays permanent", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    const { message: inbound } = b.fake.post({ channelId: channel.id, author: ALICE, text: "q" });
    b.fake.failNext(
      { kind: "status", status: 403, body: { code: 50013, message: "Missing Permissions" } },
      { op: "send" },
    );
    await b.runtime.enqueue(
      b.message(target, "answer", {
        relation: { kind: "reply", replyToId: `${channel.id}:${inbound.json.id}` },
      }),
      { idempotencyKey: "perm" },
    );
    const intent = await b.settled("perm");
    expect(intent.status).toBe("failed");
    expect(intent.failure).toMatchObject({ kind: "permission", platformCode: "50013" });
    expect(b.fake.requests.filter((r) => r.method === "POST").length).toBe(1);
  });

  it("a reference Discord still rejects (50035 REPLIES_UNKNOWN_MESSAGE) is sent once more without it", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    const { message: inbound } = b.fake.post({ channelId: channel.id, author: ALICE, text: "q" });
    b.fake.failNext(
      {
        kind: "status",
        status: 400,
        body: {
          code: 50035,
          message: "Invalid Form Body",
          errors: {
            message_reference: {
              _errors: [{ code: "REPLIES_UNKNOWN_MESSAGE", message: "Unknown message" }],
            },
          },
        },
      },
      { op: "send" },
    );
    await b.runtime.send(
      b.message(target, "answer", {
        relation: { kind: "reply", replyToId: `${channel.id}:${inbound.json.id}` },
      }),
    );
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual(["q", "answer"]);
  });
});

async function threeChunks(
  runtime: MessageRuntime,
  b: Awaited<ReturnType<typeof openBench>>,
  key: string,
) {
  const { channel, target } = b.channel();
  await runtime.enqueue(
    b.message(target, "chunk one is here. chunk two is here. chunk three here."),
    {
      idempotencyKey: key,
    },
  );
  return channel;
}

describe("C27 · 429 in the middle of a multi-part reply", () => {
  const fault = (retryAfter: number) =>
    ({
      kind: "status",
      status: 429,
      body: { message: "You are being rate limited.", retry_after: retryAfter, global: false },
      headers: { "retry-after": String(Math.ceil(retryAfter)), "x-ratelimit-scope": "user" },
    }) as const;

  it("waits ≥ 300 ms, resends chunk 2 with the same nonce, then chunk 3: three messages in order, once each", async () => {
    const b = await openBench({ config: { maxTextLength: 20 } });
    b.fake.failNext(fault(0.3), { op: "send", skip: 1 });
    const channel = await threeChunks(b.runtime, b, "c27");
    const intent = await b.settled("c27");
    expect(intent.status).toBe("sent");
    const shown = b.fake.messages(channel.id);
    expect(shown.map((m) => m.text)).toEqual([
      "chunk one is here.",
      "chunk two is here.",
      "chunk three here.",
    ]);
    expect(intent.receipt?.platformMessageIds).toEqual(shown.map((m) => `${channel.id}:${m.id}`));
    const calls = b.fake.server.calls.filter((c) => c.op === "send");
    expect(calls.map((c) => c.outcome)).toEqual(["ok 200", "status 429", "ok 200", "ok 200"]);
    expect((calls[2]?.at ?? 0) - (calls[1]?.at ?? 0)).toBeGreaterThanOrEqual(300);
    const sent = nonces(b);
    expect(sent.length).toBe(4);
    expect(sent[1]).toBe(sent[2]);
    expect(new Set(sent).size).toBe(3);
  });

  it("variant retry_after 45: the rest waits in the durable queue, chunk 1 is never resent", async () => {
    const b = await openBench({ config: { maxTextLength: 20 } });
    b.fake.failNext(fault(45), { op: "send", skip: 1 });
    const before = Date.now();
    const channel = await threeChunks(b.runtime, b, "c27-45");
    const waiting = await b.run.settled("c27-45", 3_000).catch(() => undefined);
    expect(waiting).toBeUndefined();
    const intent = await b.intent("c27-45");
    expect(intent?.status).toBe("pending");
    expect(intent?.failure).toMatchObject({ kind: "rate_limit", retryAfterMs: 45_000 });
    expect(intent?.nextAttemptAt ?? 0).toBeGreaterThanOrEqual(before + 44_000);
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual(["chunk one is here."]);
  });
});

describe("threads", () => {
  it("a reply placed in the thread under a message starts that thread (its id is the message's) and posts there", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    const { message: inbound } = b.fake.post({
      channelId: channel.id,
      author: ALICE,
      text: "help?",
    });
    const anchor = inbound.json.id as string;
    const threadTarget = { ...target, threadId: anchor };
    expect(channelOf(threadTarget)).toBe(anchor);
    await b.runtime.send(b.message(threadTarget, "in the thread"));
    expect(b.fake.channels.get(anchor)).toMatchObject({ type: "thread", parentId: channel.id });
    expect(b.fake.messages(anchor).map((m) => m.text)).toEqual(["in the thread"]);
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual(["help?"]);
  });
});

describe("rate limits", () => {
  it("declares Discord's limits and reports the bucket headers after each call", async () => {
    const b = await openBench({
      config: { rateLimits: {} },
      fake: { buckets: { limit: 5, windowMs: 5_000 } },
    });
    expect(b.adapter.capabilities.rateLimits).toEqual([
      { scope: "account", limit: 50, intervalMs: 1_000 },
      { scope: "route", limit: 5, intervalMs: 5_000 },
    ]);
    expect(b.adapter.capabilities.live?.editRate).toEqual({ limit: 5, intervalMs: 5_000 });
    const { channel, target } = b.channel();
    const reported: unknown[] = [];
    const message = b.message(target, "hi");
    await b.adapter.send.send(
      {
        channel: "discord",
        message,
        attempt: 1,
        idempotencyKey: "k",
        unitIdempotencyKey: "k#0",
        signal: new AbortController().signal,
        log: {
          debug() {},
          info() {},
          warn() {},
          error() {},
          child() {
            return this;
          },
        } as never,
        reportRateLimit: (f) => reported.push(f),
      },
      {
        index: 0,
        kind: "text",
        required: true,
        payload: { content: "hi", allowedMentions: { parse: [], replied_user: false } },
      },
    );
    expect(reported).toEqual([
      { remaining: 4, resetAfterMs: 5_000, bucket: `fakebucketmessages:${channel.id}`, limit: 5 },
    ]);
    expect(b.adapter.rateLimitRoute?.({ operation: "send", target })).toBe(
      `POST /channels/${channel.id}/messages`,
    );
  });
});

describe("header feedback", () => {
  it("a bucket the headers say is spent holds the next send until it resets: no 429, both delivered", async () => {
    // The adapter declares a loose limit; only Discord's headers (1 per 1.5 s) can hold it.
    const b = await openBench({ fake: { buckets: { limit: 1, windowMs: 1_500 } } });
    const { channel, target } = b.channel();
    await b.runtime.send(b.message(target, "first"));
    await b.runtime.enqueue(b.message(target, "second"), { idempotencyKey: "second" });
    const second = await b.settled("second");
    // Held by the scheduler before the call (attempt 1, no failure), not refused by discord.js.
    expect(second).toMatchObject({ status: "sent", attempt: 1 });
    expect(second.failure).toBeUndefined();
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual(["first", "second"]);
    const calls = b.fake.server.calls.filter((c) => c.op === "send");
    expect(calls.map((c) => c.outcome)).toEqual(["ok 200", "ok 200"]);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_400);
  });
});

describe("C43 · a send into a forum channel without a thread", () => {
  // The fake answers what Discord answers there: 400 50008, not the documented 40058.
  for (const type of ["forum", "media"] as const) {
    it(`${type}: Discord's 50008 is read as "a channel of posts" — NotImplementedError, failed, nothing posted`, async () => {
      const b = await openBench();
      const forum = b.fake.createChannel({ type });
      await b.runtime.enqueue(b.message({ kind: "group", id: forum.id }, "new post?"), {
        idempotencyKey: type,
      });
      const intent = await b.settled(type);
      expect(intent.status).toBe("failed");
      expect(intent.failure).toMatchObject({ kind: "invalid_payload", evidence: "not_dispatched" });
      expect(intent.failure?.message).toContain(`${type} channel (creating a forum post`);
      expect(intent.failure?.message).toContain("50008");
      expect(intent.attempt).toBe(1);
      expect(b.fake.messages(forum.id)).toEqual([]);
    });
  }

  it("a category (not a text channel either) keeps Discord's 50008: invalid_payload, no grant fixes it", async () => {
    const b = await openBench();
    const category = b.fake.createChannel({ type: "category" });
    await b.runtime.enqueue(b.message({ kind: "group", id: category.id }, "here?"), {
      idempotencyKey: "category",
    });
    const intent = await b.settled("category");
    expect(intent.status).toBe("failed");
    expect(intent.failure).toMatchObject({
      kind: "invalid_payload",
      evidence: "not_dispatched",
      platformCode: "50008",
    });
    expect(b.fake.messages(category.id)).toEqual([]);
  });
});

describe("C45 · a global 429 pauses every route of the account", () => {
  const sends = (b: Awaited<ReturnType<typeof openBench>>) =>
    b.fake.server.calls.filter((c) => c.op === "send");

  it("global: true in the body only (no scope header), retry_after 1.25 s: another channel's send waits it out too", async () => {
    const b = await openBench();
    const a = b.channel();
    const other = b.channel();
    b.fake.rateLimitNext("global_body_only", 1.25, { op: "send" });
    await b.runtime.enqueue(b.message(a.target, "first"), { idempotencyKey: "a" });
    await eventually(
      () => b.intent("a"),
      (i) => i?.failure?.kind === "rate_limit",
    );
    await b.runtime.enqueue(b.message(other.target, "elsewhere"), { idempotencyKey: "b" });
    expect((await b.settled("b")).status).toBe("sent");
    expect((await b.settled("a")).status).toBe("sent");
    const calls = sends(b);
    const limited = calls.find((c) => c.outcome === "status 429");
    const elsewhere = calls.filter((c) => c.outcome === "ok 200").map((c) => c.at);
    expect(limited).toBeDefined();
    // Nothing of the account was sent before Discord's wait was over.
    for (const at of elsewhere) expect(at - (limited?.at ?? 0)).toBeGreaterThanOrEqual(1_200);
    expect(b.fake.messages(other.channel.id).map((m) => m.text)).toEqual(["elsewhere"]);
    expect(b.fake.messages(a.channel.id).map((m) => m.text)).toEqual(["first"]);
  });

  it("Cloudflare's 429 (HTML, no Discord headers) holds the whole account: one refused call, not one per channel", async () => {
    const b = await openBench();
    const a = b.channel();
    const other = b.channel();
    b.fake.restrictAddress(1);
    await b.runtime.enqueue(b.message(a.target, "first"), { idempotencyKey: "a" });
    await eventually(
      () => b.intent("a"),
      (i) => i?.failure?.kind === "rate_limit",
    );
    await b.runtime.enqueue(b.message(other.target, "elsewhere"), { idempotencyKey: "b" });
    expect((await b.settled("b")).status).toBe("sent");
    expect((await b.settled("a")).status).toBe("sent");
    expect(b.fake.edgeRefusals).toHaveLength(1);
    expect(b.fake.messages(other.channel.id).map((m) => m.text)).toEqual(["elsewhere"]);
  });

  it("a 429 naming no wait is retried after herald's backoff, not at once", async () => {
    const b = await openBench({
      delivery: { ...TEST_RUN_DELIVERY, backoff: { baseMs: 1_000, maxMs: 1_000, maxAttempts: 8 } },
    });
    const { channel, target } = b.channel();
    b.fake.rateLimitNext("no_wait", 0, { op: "send" });
    await b.runtime.enqueue(b.message(target, "hello"), { idempotencyKey: "k" });
    expect((await b.settled("k")).status).toBe("sent");
    const calls = sends(b);
    expect(calls.map((c) => c.outcome)).toEqual(["status 429", "ok 200"]);
    // Backoff 1 s with jitter 0.5 at random 0.5: 750 ms.
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(700);
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual(["hello"]);
  });
});
