/**
 * Sends against the fake Chat API through the real client and a real runtime: requestId /
 * messageId semantics, threads (C21, C35), per-space 429s without Retry-After (C37), edits,
 * deletes, reconciliation by GET, cards.
 */
import type { MessageTarget } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { accessTokenCredentials } from "./auth.ts";
import { createChatApi } from "./client.ts";
import { classifyError, GoogleChatApiError } from "./errors.ts";
import { clientMessageId, REPLY_OPTION, requestIdOf } from "./send.ts";
import { ALICE, FAKE_ACCESS_TOKEN, SECOND_ACCESS_TOKEN } from "./testing/FakeGoogleChat.ts";
import { type GoogleChatRun, openGoogleChatRun } from "./testing/fixture.ts";
import { visibleOf } from "./testing/harness.ts";

let open: GoogleChatRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function start(options: Parameters<typeof openGoogleChatRun>[0] = {}) {
  open = await openGoogleChatRun(options);
  return open;
}

/** The Chat API face the adapter uses, for wire-level checks of the fake. */
const apiOf = (t: GoogleChatRun) =>
  createChatApi({
    rootUrl: t.fake.rootUrl,
    auth: accessTokenCredentials(FAKE_ACCESS_TOKEN).auth,
    timeoutMs: 5_000,
  });

const texts = (t: GoogleChatRun, space: string, thread?: string) =>
  t.fake.store
    .messages({ space })
    .filter((m) => (thread ? !m.root && m.thread === thread : m.root))
    .map((m) => visibleOf(t.fake, m).text);

describe("the fake Chat API", () => {
  it("a repeated requestId returns the stored message unchanged, even with another body", async () => {
    const t = await start();
    const api = apiOf(t);
    const space = t.fake.createSpace().name;
    const first = await api.create({
      parent: space,
      requestId: "r-1",
      messageId: "client-abc",
      requestBody: { text: "first" },
    });
    const again = await api.create({
      parent: space,
      requestId: "r-1",
      messageId: "client-abc",
      requestBody: { text: "second" },
    });
    expect(again.name).toBe(first.name);
    expect(texts(t, space)).toEqual(["first"]);
    // The client-assigned id names it too.
    expect((await api.get(`${space}/messages/client-abc`)).name).toBe(first.name);
    // Reused by another request: 409 ALREADY_EXISTS, a conflict.
    const reused = await api
      .create({
        parent: space,
        requestId: "r-2",
        messageId: "client-abc",
        requestBody: { text: "x" },
      })
      .catch((e: unknown) => e);
    expect(classifyError(reused)).toMatchObject({ kind: "conflict", evidence: "not_dispatched" });
    // The same requestId from another app is an error, never the first app's message.
    const other = await createChatApi({
      rootUrl: t.fake.rootUrl,
      auth: accessTokenCredentials(SECOND_ACCESS_TOKEN).auth,
      timeoutMs: 5_000,
    })
      .create({
        parent: space,
        requestId: "r-1",
        messageId: "client-def",
        requestBody: { text: "y" },
      })
      .catch((e: unknown) => e);
    expect(other).toBeInstanceOf(GoogleChatApiError);
    expect((other as GoogleChatApiError).status).toBe(400);
    expect(texts(t, space)).toEqual(["first"]);
  });

  it("C41 switch: after requestIdRetentionMs a repeated create is no longer matched by requestId; its taken client id answers 409 ALREADY_EXISTS in the AIP-193 shape", async () => {
    let now = 1_000_000;
    const t = await start({ fake: { requestIdRetentionMs: 60_000, clock: () => now } });
    const api = apiOf(t);
    const space = t.fake.createSpace().name;
    const create = () =>
      api.create({
        parent: space,
        requestId: "r-41",
        messageId: "client-c41",
        requestBody: { text: "once" },
      });
    const first = await create();
    now += 59_999;
    expect((await create()).name).toBe(first.name);
    now += 1;
    const late = await create().catch((e: unknown) => e);
    expect(late).toBeInstanceOf(GoogleChatApiError);
    expect(late).toMatchObject({ status: 409, grpcStatus: "ALREADY_EXISTS", alreadyExists: true });
    const [answer] = t.fake.server.calls.slice(-1);
    expect(answer?.outcome).toBe("ok 409");
    expect(texts(t, space)).toEqual(["once"]);
  });

  it("a thread name without the reply option starts a new thread; a message name as thread name is a 400", async () => {
    const t = await start();
    const api = apiOf(t);
    const space = t.fake.createSpace().name;
    const { message: root } = t.fake.userPost({ space, text: "question" });
    const loose = await api.create({
      parent: space,
      requestId: "r-a",
      messageId: "client-a",
      requestBody: { text: "no option", thread: { name: root.thread } },
    });
    expect(loose.thread?.name).not.toBe(root.thread);
    const joined = await api.create({
      parent: space,
      requestId: "r-b",
      messageId: "client-b",
      messageReplyOption: REPLY_OPTION,
      requestBody: { text: "with option", thread: { name: root.thread } },
    });
    expect(joined.thread?.name).toBe(root.thread);
    const wrong = await api
      .create({
        parent: space,
        requestId: "r-c",
        messageId: "client-c",
        messageReplyOption: REPLY_OPTION,
        requestBody: { text: "bad", thread: { name: root.name } },
      })
      .catch((e: unknown) => e);
    expect(classifyError(wrong)).toMatchObject({
      kind: "invalid_payload",
      platformCode: "INVALID_ARGUMENT",
    });
  });
});

describe("the fake's limits", () => {
  it("a thread key without the reply option starts a new thread; with it, the key's thread", async () => {
    const t = await start();
    const api = apiOf(t);
    const space = t.fake.createSpace().name;
    const create = (n: number, option?: string) =>
      api.create({
        parent: space,
        requestId: `rk-${n}`,
        messageId: `client-k${n}`,
        ...(option ? { messageReplyOption: option } : {}),
        requestBody: { text: `m${n}`, thread: { threadKey: "topic-1" } },
      });
    const a = await create(1, REPLY_OPTION);
    const b = await create(2, REPLY_OPTION);
    const c = await create(3);
    expect(b.thread?.name).toBe(a.thread?.name);
    expect(c.thread?.name).not.toBe(a.thread?.name);
  });

  it("C37: over the per-space write limit the fake answers 429 RESOURCE_EXHAUSTED without Retry-After", async () => {
    const t = await start({ fake: { writesPerSecondPerSpace: 1 } });
    const api = apiOf(t);
    const space = t.fake.createSpace().name;
    const other = t.fake.createSpace().name;
    const body = (n: number, parent = space) => ({
      parent,
      requestId: `rl-${n}`,
      messageId: `client-rl${n}`,
      requestBody: { text: `m${n}` },
    });
    await api.create(body(1));
    const limited = await api.create(body(2)).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(GoogleChatApiError);
    expect((limited as GoogleChatApiError).grpcStatus).toBe("RESOURCE_EXHAUSTED");
    expect((limited as GoogleChatApiError).retryAfterMs).toBeUndefined();
    expect(classifyError(limited).retryAfterMs).toBeUndefined();
    // Another space has its own limit.
    await expect(api.create(body(3, other))).resolves.toMatchObject({ text: "m3" });
  });
});

describe("send", () => {
  it("sends with a requestId and a client-assigned messageId from the unit key", async () => {
    const t = await start();
    const space = t.fake.createSpace().name;
    const receipt = await t.run.runtime.send(
      t.run.message("googlechat", { kind: "group", id: space }, "hello"),
      { idempotencyKey: "k-1" },
    );
    const [create] = t.fake.creates;
    expect(create?.messageId).toBe(clientMessageId("k-1#0"));
    expect(create?.messageId).toMatch(/^client-[a-z0-9]{40,56}$/);
    expect(create?.requestId).toBe(requestIdOf("k-1#0"));
    expect(create?.messageReplyOption).toBeUndefined();
    expect(receipt.platformMessageIds).toEqual(t.fake.store.messages({ space }).map((m) => m.name));
  });

  it("C21: two creates for the same turn thread and a long reply all land in the inbound's thread, each with the reply option", async () => {
    const t = await start({ config: { maxTextLength: 40 } });
    const space = t.fake.createSpace().name;
    const { message: inbound } = t.fake.userPost({ space, text: "a question" });
    const thread: MessageTarget = {
      kind: "thread",
      id: space,
      parentId: space,
      threadId: inbound.thread,
    };
    await t.run.runtime.send(t.run.message("googlechat", thread, "log entry one"));
    await t.run.runtime.send(t.run.message("googlechat", thread, "log entry two"));
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    const reply = await t.run.runtime.send(
      t.run.message("googlechat", { kind: "group", id: space }, long, {
        relation: { kind: "reply", replyToId: inbound.name, threadId: inbound.thread },
      }),
    );
    expect(reply.platformMessageIds.length).toBeGreaterThanOrEqual(3);
    for (const create of t.fake.creates) {
      expect(create.body.thread).toEqual({ name: inbound.thread });
      expect(create.messageReplyOption).toBe(REPLY_OPTION);
    }
    expect(texts(t, space, inbound.thread).join(" ")).toBe(`log entry one log entry two ${long}`);
    expect(texts(t, space)).toEqual(["a question"]);
  });

  it("C35: a message name passed as thread name is never sent; one top-level post with the reason recorded, later chunks follow it", async () => {
    const t = await start({ config: { maxTextLength: 30 } });
    const space = t.fake.createSpace().name;
    const { message: inbound } = t.fake.userPost({ space, text: "q" });
    const target: MessageTarget = { kind: "thread", id: space, threadId: inbound.name };
    const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
    const receipt = await t.run.runtime.send(t.run.message("googlechat", target, text), {
      idempotencyKey: "c35",
    });
    expect(t.fake.creates.every((c) => c.body.thread === undefined)).toBe(true);
    expect(t.fake.creates).toHaveLength(receipt.parts.length);
    expect(texts(t, space).slice(1).join(" ")).toBe(text);
    expect(receipt.parts[0]?.raw).toMatchObject({
      threadFallback: expect.stringContaining("is a message name"),
    });
    expect(t.run.logLines.some((l) => l.includes("posting top-level once (C35)"))).toBe(true);
  });

  it("C35: the platform's 400 invalid thread resource name gets one top-level fallback; a permanent 4xx never loops", async () => {
    const t = await start();
    const space = t.fake.createSpace().name;
    const stale = `${space}/threads/gone`;
    t.fake.faults.failNext(
      { kind: "status", status: 400, description: `Invalid thread resource name: ${stale}` },
      { op: "send" },
    );
    const receipt = await t.run.runtime.send(
      t.run.message("googlechat", { kind: "thread", id: space, threadId: stale }, "answer"),
    );
    expect(texts(t, space)).toEqual(["answer"]);
    expect(receipt.parts[0]?.raw).toMatchObject({
      threadFallback: expect.stringContaining("refused thread"),
    });
    // A 400 that is not about the thread fails the send once, without replays.
    t.fake.faults.failNext(
      { kind: "status", status: 400, description: "Message cannot be empty." },
      { op: "send", times: 5 },
    );
    const before = t.fake.server.calls.filter((c) => c.op === "send").length;
    await t.run.runtime
      .send(t.run.message("googlechat", { kind: "thread", id: space, threadId: stale }, "x"), {
        idempotencyKey: "perm",
      })
      .catch(() => {});
    expect((await t.run.settled("perm")).status).toBe("failed");
    expect(t.fake.server.calls.filter((c) => c.op === "send").length - before).toBe(1);
  });

  it("C37: three chunks to a space limited to one write per second: 429 without Retry-After, backoff, the same keys, all three once and in order in the thread; other spaces keep flowing", async () => {
    const t = await start({
      fake: { writesPerSecondPerSpace: 1 },
      config: { maxTextLength: 20 },
      run: { delivery: { pollIntervalMs: 10, backoff: { baseMs: 300, maxMs: 2_000 } } },
    });
    const space = t.fake.createSpace().name;
    const other = t.fake.createSpace().name;
    const { message: inbound } = t.fake.userPost({ space, text: "q" });
    const thread: MessageTarget = { kind: "thread", id: space, threadId: inbound.thread };
    await t.run.runtime.enqueue(
      t.run.message("googlechat", thread, "chunk-one aaaa chunk-two bbbb chunk-three cc"),
      { idempotencyKey: "c37" },
    );
    await t.run.runtime.send(
      t.run.message("googlechat", { kind: "group", id: other }, "elsewhere"),
    );
    // Other spaces keep flowing: "elsewhere" was delivered while the throttled chunks (one per
    // second, ≥ 2 s for three) were not all sent (an ordering, not a duration).
    expect((await t.run.store.getIntentByIdempotencyKey("c37"))?.status).not.toBe("sent");
    const intent = await t.run.settled("c37", 20_000);
    expect(intent.status).toBe("sent");
    const limited = t.fake.server.calls.filter((c) => c.outcome === "ok 429");
    expect(limited.length).toBeGreaterThan(0);
    expect(texts(t, space, inbound.thread)).toEqual([
      "chunk-one aaaa",
      "chunk-two bbbb",
      "chunk-three cc",
    ]);
    expect(texts(t, other)).toEqual(["elsewhere"]);
    // Every retry of a unit carried that unit's keys.
    const keys = new Map<string, Set<string>>();
    for (const c of t.fake.creates.filter((c) => c.space === space)) {
      keys.set(
        String(c.messageId),
        (keys.get(String(c.messageId)) ?? new Set()).add(String(c.requestId)),
      );
    }
    expect(keys.size).toBe(3);
    for (const ids of keys.values()) expect(ids.size).toBe(1);
    const failure = intent.failure;
    expect(failure === undefined || failure.kind === "rate_limit").toBe(true);
  });

  it("C37 variant: chunk 3 answered 500 after the fake stored it: the same key returns the stored message, no duplicate", async () => {
    const t = await start({ config: { maxTextLength: 20 } });
    const space = t.fake.createSpace().name;
    t.fake.answerAfterStore({ status: 500 }, 2);
    await t.run.runtime.enqueue(
      t.run.message(
        "googlechat",
        { kind: "group", id: space },
        "chunk-one aaaa chunk-two bbbb chunk-three cc",
      ),
      { idempotencyKey: "c37b" },
    );
    expect((await t.run.settled("c37b", 15_000)).status).toBe("sent");
    expect(texts(t, space)).toEqual(["chunk-one aaaa", "chunk-two bbbb", "chunk-three cc"]);
  });

  it("C41: part 1 of 2 created, its answer lost, its requestId forgotten: the replay's 409 ALREADY_EXISTS commits part 1 by lookup, part 2 is sent; one message each", async () => {
    // Google documents no requestId retention: the fake remembers none, so only the
    // client-assigned messageId (unique in the space) recognises the replay.
    const t = await start({ fake: { requestIdRetentionMs: 0 }, config: { maxTextLength: 20 } });
    const space = t.fake.createSpace().name;
    t.fake.faults.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await t.run.runtime.enqueue(
      t.run.message("googlechat", { kind: "group", id: space }, "chunk-one aaaa chunk-two bbbb"),
      { idempotencyKey: "c41" },
    );
    const intent = await t.run.settled("c41", 15_000);
    expect(intent.status).toBe("sent");
    expect(texts(t, space)).toEqual(["chunk-one aaaa", "chunk-two bbbb"]);
    // The replay of part 1 really met the 409 (and nothing else did).
    expect(t.fake.server.calls.filter((c) => c.outcome === "ok 409")).toHaveLength(1);
    const stored = t.fake.store.messages({ space }).map((m) => m.name);
    expect(intent.receipt?.platformMessageIds).toEqual(stored);
    expect(t.run.logLines.some((l) => l.includes("committed by lookup (C41)"))).toBe(true);
  });

  it("C41: a replayed part whose message was deleted since counts as sent (not posted again); the later part is sent", async () => {
    let now = Date.UTC(2026, 0, 1);
    const t = await start({
      fake: { requestIdRetentionMs: 0 },
      config: { maxTextLength: 20 },
      run: { clock: () => now },
    });
    const space = t.fake.createSpace().name;
    t.fake.faults.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await t.run.runtime.enqueue(
      t.run.message("googlechat", { kind: "group", id: space }, "chunk-one aaaa chunk-two bbbb"),
      { idempotencyKey: "c41-gone" },
    );
    // Part 1 is stored, its answer lost; the replay waits for the (manual) clock.
    await eventually(
      async () => (await t.run.intent("c41-gone"))?.status,
      (s) => s === "unknown_after_send",
      { what: "part 1 in doubt" },
    );
    const [part1] = t.fake.store.messages({ space });
    t.fake.store.state.delete(String(part1?.id)); // a person deleted it meanwhile
    now += 120_000;
    const intent = await t.run.settled("c41-gone", 15_000);
    expect(intent.status).toBe("sent");
    expect(texts(t, space)).toEqual(["chunk-two bbbb"]);
    expect(intent.receipt?.platformMessageIds[0]).toBe(
      `${space}/messages/${clientMessageId("c41-gone#0")}`,
    );
    expect(t.run.logLines.some((l) => l.includes("deleted since: counted as sent"))).toBe(true);
  });

  it("C41: a 409 ALREADY_EXISTS on a first attempt is a conflict: nothing of ours can hold the id yet", async () => {
    const t = await start({ fake: { requestIdRetentionMs: 0 } });
    const space = t.fake.createSpace().name;
    const key = "c41-first#0";
    await apiOf(t).create({
      parent: space,
      requestId: "someone-else",
      messageId: clientMessageId(key),
      requestBody: { text: "not ours" },
    });
    await t.run.runtime
      .send(t.run.message("googlechat", { kind: "group", id: space }, "ours"), {
        idempotencyKey: "c41-first",
      })
      .catch(() => {});
    const intent = await t.run.settled("c41-first");
    expect(intent.status).toBe("failed");
    expect(intent.failure).toMatchObject({ kind: "conflict" });
    expect(texts(t, space)).toEqual(["not ours"]);
  });

  it("edits with an updateMask and deletes; a message already gone is deleted", async () => {
    const t = await start();
    const space = t.fake.createSpace().name;
    const target = { kind: "group", id: space } as const;
    const receipt = await t.run.runtime.send(t.run.message("googlechat", target, "draft"));
    const edited = await t.run.runtime.edit(receipt, t.run.message("googlechat", target, "final"));
    expect(texts(t, space)).toEqual(["final"]);
    const [stored] = t.fake.store.messages({ space });
    expect(stored?.lastUpdateTime).toBeDefined();
    const message = t.run.message("googlechat", target, "final");
    await t.run.runtime.delete(edited, message);
    expect(texts(t, space)).toEqual([]);
    await expect(
      t.run.runtime.delete(edited, message, { idempotencyKey: "delete-again" }),
    ).resolves.toBeUndefined();
  });

  it("reconciles by GET on the client-assigned id", async () => {
    const t = await start();
    const space = t.fake.createSpace().name;
    const adapter = t.adapter;
    const reconcile = adapter.send.reconcileUnknownSend;
    if (!reconcile) throw new Error("no reconciler");
    const message = t.run.message("googlechat", { kind: "group", id: space }, "lost answer");
    const batch = await adapter.render.render(message, {
      idempotencyKey: "rec",
      capabilities: adapter.capabilities,
    });
    const ctx = {
      channel: "googlechat",
      message,
      attempt: 1,
      idempotencyKey: "rec",
      unitIdempotencyKey: "rec#0",
      signal: new AbortController().signal,
      log: t.run.logger,
    };
    expect(await reconcile(ctx, batch.units)).toEqual({ status: "not_sent" });
    const unit = batch.units[0];
    if (!unit) throw new Error("no unit");
    await adapter.send.send(ctx, unit);
    const found = await reconcile(ctx, batch.units);
    expect(found).toMatchObject({ status: "sent", parts: [{ index: 0 }] });
    expect(found.status === "sent" && found.parts[0]?.platformMessageId).toBe(
      t.fake.store.messages({ space })[0]?.name,
    );
  });

  it("sends a card as cardsV2 with its plain-text fallback", async () => {
    const t = await start();
    const space = t.fake.createSpace().name;
    await t.run.runtime.send(
      t.run.message("googlechat", { kind: "group", id: space }, "see below", {
        card: {
          title: "Deploy",
          fields: [{ label: "env", value: "**prod**" }],
          actions: [{ kind: "button", label: "Approve", id: "approve" }],
        },
      }),
    );
    const [text, card] = t.fake.store.messages({ space });
    expect(text && t.fake.store.textOf(text)).toBe("see below");
    expect(card?.fallbackText).toContain("Deploy");
    expect(card?.cardsV2).toEqual([
      expect.objectContaining({
        cardId: "herald-card",
        card: expect.objectContaining({ header: { title: "Deploy" } }),
      }),
    ]);
  });

  it("a card Chat refuses is sent once as its plain-text fallback, in the same thread", async () => {
    const t = await start();
    const space = t.fake.createSpace().name;
    const { message: inbound } = t.fake.userPost({ space, text: "approve?" });
    t.fake.faults.failNext(
      { kind: "status", status: 403, description: "Cards require app authentication." },
      { op: "send", skip: 1 },
    );
    const receipt = await t.run.runtime.send(
      t.run.message(
        "googlechat",
        { kind: "thread", id: space, threadId: inbound.thread },
        "policy",
        {
          card: {
            title: "Run rm -rf /tmp/cache?",
            actions: [{ kind: "button", label: "Approve", id: "ok" }],
          },
        },
      ),
    );
    expect(texts(t, space, inbound.thread)).toEqual([
      "policy",
      "Run rm -rf /tmp/cache?\n\n• Approve",
    ]);
    expect(receipt.parts[1]?.raw).toMatchObject({
      cardFallback: expect.stringContaining("app authentication"),
    });
    expect(t.fake.store.messages({ space }).every((m) => m.cardsV2 === undefined)).toBe(true);
  });

  it("a refused card whose fallback is longer than Chat's text limit is sent cut to 4,096 characters, not failed", async () => {
    const t = await start();
    const space = t.fake.createSpace().name;
    t.fake.faults.failNext(
      { kind: "status", status: 403, description: "Cards require app authentication." },
      { op: "send", skip: 1 },
    );
    const receipt = await t.run.runtime.send(
      t.run.message("googlechat", { kind: "group", id: space }, "policy", {
        card: { title: "Long", markdown: "word ".repeat(1_200) },
      }),
    );
    const [, fallback] = texts(t, space);
    expect(fallback?.length).toBeLessThanOrEqual(4_096);
    expect(fallback?.startsWith("Long\n\nword word")).toBe(true);
    expect(fallback?.endsWith(" …")).toBe(true);
    expect(receipt.parts[1]?.raw).toMatchObject({ cardFallbackTruncated: true });
  });

  it("a quote reply quotes the inbound on the first chunk only", async () => {
    const t = await start({ config: { maxTextLength: 20 } });
    const space = t.fake.createSpace().name;
    const { message: inbound } = t.fake.userPost({ space, text: "question", sender: ALICE });
    await t.run.runtime.send(
      t.run.message(
        "googlechat",
        { kind: "group", id: space },
        "first part here and a second part",
        {
          relation: { kind: "reply", replyToId: inbound.name, placement: "quote" },
        },
      ),
    );
    const ours = t.fake.store.messages({ space }).filter((m) => m.sender.type === "BOT");
    expect(ours.map((m) => m.quoted ?? null)).toEqual([
      inbound.name,
      ...ours.slice(1).map(() => null),
    ]);
  });
});
