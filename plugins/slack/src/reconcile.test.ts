import type {
  ChannelMessageAdapter,
  MessageSendContext,
  MessageTarget,
  RenderedMessageUnit,
} from "@herald/plugin-sdk/channel-message";
import { captureLogger } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { SlackConfigInput } from "./config.ts";
import { createSlackAdapter } from "./index.ts";
import { unitMetadata } from "./origin.ts";
import { testConfig } from "./testing/harness.ts";
import { ALICE, FAKE_BOT, FakeSlack, type FakeSlackOptions } from "./testing/index.ts";

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(extra: SlackConfigInput = {}, options: FakeSlackOptions = {}) {
  fake = await FakeSlack.start(options);
  const f = fake;
  const adapter = (more: SlackConfigInput = {}): ChannelMessageAdapter =>
    createSlackAdapter(
      testConfig(
        {
          apiUrl: f.apiUrl,
          token: FAKE_BOT.token,
          signingSecret: FAKE_BOT.signingSecret,
          unknownSendPolicy: "hold",
        },
        { ...extra, ...more },
      ),
      { token: FAKE_BOT.token },
    );
  return { fake: f, adapter };
}

function ctxOf(target: MessageTarget, key: string): MessageSendContext {
  return {
    channel: "slack",
    accountId: "main",
    message: { id: key, channel: "slack", accountId: "main", direction: "outbound", target },
    attempt: 1,
    idempotencyKey: key,
    unitIdempotencyKey: `${key}#0`,
    signal: new AbortController().signal,
    log: captureLogger([]),
  };
}

const unit = (index: number, text = `part ${index}`): RenderedMessageUnit => ({
  index,
  kind: "text",
  payload: { type: "text", text },
  required: true,
});

/** Posts a unit of `key` as the bot, as the adapter's send would have (a lost answer). */
function landed(f: FakeSlack, channel: string, key: string, index: number, threadTs?: string) {
  return f.addMessage({
    channel,
    text: `part ${index}`,
    user: FAKE_BOT.userId,
    bot: FAKE_BOT,
    metadata: unitMetadata({ accountId: "main", idempotencyKey: key, unitIndex: index }),
    ...(threadTs ? { threadTs } : {}),
  });
}

function chatter(f: FakeSlack, channel: string, n: number, threadTs?: string) {
  for (let i = 0; i < n; i++) {
    f.addMessage({
      channel,
      text: `chatter ${i}`,
      user: ALICE.id,
      ...(threadTs ? { threadTs } : {}),
    });
  }
}

describe("reconcileUnknownSend", () => {
  it("finds a landed unit by its metadata after a restart (no dispatch memory): sent, with its ts", async () => {
    const { fake, adapter } = await setup();
    const channel = fake.createChannel().id;
    chatter(fake, channel, 3);
    const m = landed(fake, channel, "k1", 0);
    chatter(fake, channel, 20);
    const result = await adapter().send.reconcileUnknownSend?.(
      ctxOf({ kind: "group", id: channel }, "k1"),
      [unit(0)],
    );
    expect(result).toEqual({
      status: "sent",
      parts: [{ platformMessageId: `${channel}:${m.ts}`, kind: "text", index: 0 }],
    });
  });

  it("not_sent once the whole conversation was read without it", async () => {
    const { fake, adapter } = await setup();
    const channel = fake.createChannel().id;
    chatter(fake, channel, 20);
    landed(fake, channel, "another-intent", 0);
    const result = await adapter().send.reconcileUnknownSend?.(
      ctxOf({ kind: "group", id: channel }, "k2"),
      [unit(0)],
    );
    expect(result).toEqual({ status: "not_sent" });
  });

  it("not_sent at a fence: an earlier unit of the same intent predates the missing ones", async () => {
    const { fake, adapter } = await setup({ reconcile: { maxPagesPerCheck: 1 } });
    const channel = fake.createChannel().id;
    chatter(fake, channel, 60);
    landed(fake, channel, "k3", 0);
    chatter(fake, channel, 5);
    const result = await adapter().send.reconcileUnknownSend?.(
      ctxOf({ kind: "group", id: channel }, "k3"),
      [unit(1), unit(2)],
    );
    expect(result).toEqual({ status: "not_sent" });
  });

  it("unresolved when Slack says there is more history but gives no cursor to read it (never not_sent)", async () => {
    const { fake, adapter } = await setup();
    const channel = fake.createChannel().id;
    chatter(fake, channel, 3);
    fake.failNext(
      { kind: "status", status: 200, body: { ok: true, messages: [], has_more: true } },
      { op: "read" },
    );
    const result = await adapter().send.reconcileUnknownSend?.(
      ctxOf({ kind: "group", id: channel }, "k4c"),
      [unit(0)],
    );
    expect(result?.status).toBe("unresolved");
  });

  it("unresolved when the read budget ends before the conversation does (then unknownSendPolicy)", async () => {
    const { fake, adapter } = await setup({ reconcile: { maxPagesPerCheck: 2 } });
    const channel = fake.createChannel().id;
    chatter(fake, channel, 40);
    const result = await adapter().send.reconcileUnknownSend?.(
      ctxOf({ kind: "group", id: channel }, "k4"),
      [unit(0)],
    );
    expect(result?.status).toBe("unresolved");
  });

  it("in the process that sent it, reads only from the first dispatch: not_sent without reading old history", async () => {
    const { fake, adapter } = await setup({ reconcile: { maxPagesPerCheck: 1 } });
    const a = adapter();
    const channel = fake.createChannel().id;
    const target: MessageTarget = { kind: "group", id: channel };
    // Old history, more than one page, from before the send (older than the clock margin).
    for (let i = 0; i < 40; i++) {
      fake.addMessage({ channel, text: `old ${i}`, user: ALICE.id, atMs: Date.now() - 3_600_000 });
    }
    fake.failNext({ kind: "reset_before_accept" }, { op: "send" });
    const ctx = ctxOf(target, "k5");
    await expect(a.send.send(ctx, unit(0))).rejects.toThrow();
    expect(await a.send.reconcileUnknownSend?.(ctx, [unit(0)])).toEqual({ status: "not_sent" });
    fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    const ctx2 = ctxOf(target, "k6");
    await expect(a.send.send(ctx2, unit(0))).rejects.toThrow();
    expect((await a.send.reconcileUnknownSend?.(ctx2, [unit(0)]))?.status).toBe("sent");
    // One page each: the old history was never read.
    expect(fake.server.calls.filter((c) => c.op === "read")).toHaveLength(2);
  });

  it("reads a thread with conversations.replies and finds the unit there", async () => {
    const { fake, adapter } = await setup();
    const channel = fake.createChannel().id;
    const root = fake.addMessage({ channel, text: "root", user: ALICE.id });
    chatter(fake, channel, 20, root.ts);
    const m = landed(fake, channel, "k7", 0, root.ts);
    const target: MessageTarget = {
      kind: "thread",
      id: channel,
      parentId: channel,
      threadId: root.ts,
    };
    const result = await adapter().send.reconcileUnknownSend?.(ctxOf(target, "k7"), [unit(0)]);
    expect(result).toEqual({
      status: "sent",
      parts: [
        { platformMessageId: `${channel}:${m.ts}`, kind: "text", index: 0, threadId: root.ts },
      ],
    });
  });

  it("paces its reads to the workspace budget, shared by concurrent checks: Slack never answers 429", async () => {
    const interval = 250;
    const { fake, adapter } = await setup(
      { reconcile: { historyIntervalMs: interval, maxPagesPerCheck: 3 } },
      // Half the pacing: load may delay one read and not the next; an unpaced reader still trips it.
      { historyIntervalMs: interval / 2 },
    );
    const a = adapter();
    const one = fake.createChannel().id;
    const two = fake.createChannel().id;
    chatter(fake, one, 40);
    chatter(fake, two, 40);
    const started = Date.now();
    const results = await Promise.all([
      a.send.reconcileUnknownSend?.(ctxOf({ kind: "group", id: one }, "p1"), [unit(0)]),
      a.send.reconcileUnknownSend?.(ctxOf({ kind: "group", id: two }, "p2"), [unit(0)]),
    ]);
    expect(results.map((r) => r?.status)).toEqual(["not_sent", "not_sent"]);
    const reads = fake.server.calls.filter((c) => c.op === "read");
    expect(reads.map((c) => c.outcome).every((o) => o === "ok 200")).toBe(true);
    expect(reads).toHaveLength(6);
    // Six reads, one budget: at least five intervals between the first and the last.
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * interval - 20);
  });

  it("answers unresolved instead of waiting longer than maxBudgetWaitMs for its turn", async () => {
    const { fake, adapter } = await setup({
      reconcile: { historyIntervalMs: 10_000, maxBudgetWaitMs: 100, maxPagesPerCheck: 1 },
    });
    const a = adapter();
    const channel = fake.createChannel().id;
    const target: MessageTarget = { kind: "group", id: channel };
    expect((await a.send.reconcileUnknownSend?.(ctxOf(target, "b1"), [unit(0)]))?.status).toBe(
      "not_sent",
    );
    const second = await a.send.reconcileUnknownSend?.(ctxOf(target, "b2"), [unit(0)]);
    expect(second).toMatchObject({ status: "unresolved" });
  });
});
