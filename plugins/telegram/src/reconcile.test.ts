/**
 * `reconcile: "probe"`: what the probe can prove on the fake Bot API, and what it refuses.
 */
import { isHeldForOperator } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { createTelegramAdapter } from "./index.ts";
import { withTelegramOptions } from "./render.ts";
import { openBench } from "./testing/bench.ts";
import { FAKE_BOT } from "./testing/FakeTelegram.ts";

const probe = { reconcile: "probe" as const };

describe("reconciling an unknown send by probing", () => {
  it("finds the message that landed before the reset: sent with its id, one copy, text untouched (C01)", async () => {
    const b = await openBench({ config: probe });
    const { chat, target } = b.dm();
    await b.runtime.send(b.message(target, "first"));
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "second"), { idempotencyKey: "r1" });
    const intent = await b.settled("r1");
    expect(intent.status).toBe("sent");
    const shown = b.fake.messages(chat.id);
    expect(shown.map((m) => m.text)).toEqual(["first", "second"]);
    expect(intent.receipt?.platformMessageIds).toEqual([`${chat.id}:${shown[1]?.id}`]);
    expect(shown[1]?.history).toEqual(["second"]);
  });

  it("finds a lost message with an inline keyboard by probing with that same keyboard", async () => {
    const b = await openBench({ config: probe });
    const { chat, target } = b.dm();
    await b.runtime.send(b.message(target, "first"));
    const keyboard = [[{ text: "OK", callback_data: "ok" }]];
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await b.runtime.enqueue(
      withTelegramOptions(b.message(target, "pick"), { inlineKeyboard: keyboard }),
      {
        idempotencyKey: "kb",
      },
    );
    expect((await b.settled("kb")).status).toBe("sent");
    const [, pick] = b.fake.messages(chat.id);
    expect(b.fake.message(pick?.id as string)).toMatchObject({
      reply_markup: { inline_keyboard: keyboard },
    });
  });

  it("never proves 'not sent': after a reset before Telegram stored it, the checks stay unresolved and the send is held", async () => {
    const b = await openBench({ config: probe });
    const { chat, target } = b.dm();
    await b.runtime.send(b.message(target, "first"));
    b.fake.failNext({ kind: "reset_before_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "second"), { idempotencyKey: "r2" });
    const intent = await b.settled("r2");
    expect(isHeldForOperator(intent)).toBe(true);
    expect(intent.failure?.message).toMatch(/reconciliation unresolved \(5\/5\).*not among ids/);
    expect(b.fake.messages(chat.id).map((m) => m.text)).toEqual(["first"]);
  });

  it("refuses to probe a chat this process has not sent to yet, so the first message's unknown send is held", async () => {
    const b = await openBench({ config: probe });
    const { chat, target } = b.dm();
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "hello"), { idempotencyKey: "r3" });
    const intent = await b.settled("r3");
    expect(isHeldForOperator(intent)).toBe(true);
    expect(intent.failure?.message).toContain("no earlier message of this bot in this chat");
    expect(b.fake.messages(chat.id).map((m) => m.text)).toEqual(["hello"]);
  });

  it("touches only the reply markup of a message it did not expect, never its text, and stays unresolved", async () => {
    const b = await openBench({ config: probe });
    const { chat, target } = b.dm();
    await b.runtime.send(b.message(target, "first"));
    // Another process sends as the same bot (why probing is off by default).
    const other = createTelegramAdapter(b.config, FAKE_BOT.token);
    const elsewhere = withTelegramOptions(b.message(target, "from elsewhere"), {
      inlineKeyboard: [[{ text: "Go", callback_data: "go" }]],
    });
    const { units } = await other.render.render(elsewhere, {
      idempotencyKey: "elsewhere",
      capabilities: other.capabilities,
    });
    const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
    await other.send.send(
      {
        channel: "telegram",
        message: elsewhere,
        attempt: 1,
        idempotencyKey: "elsewhere",
        unitIdempotencyKey: "elsewhere#0",
        signal: new AbortController().signal,
        log: silent,
      },
      units[0] as (typeof units)[number],
    );
    b.fake.failNext({ kind: "reset_before_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "mine"), { idempotencyKey: "r4" });
    const intent = await b.settled("r4");
    expect(isHeldForOperator(intent)).toBe(true);
    expect(intent.failure?.message).toContain("another sender of this bot was seen in this chat");
    const shown = b.fake.messages(chat.id);
    expect(shown.map((m) => [m.text, m.history.length])).toEqual([
      ["first", 1],
      ["from elsewhere", 1],
    ]);
    // The damage a wrong guess can do: the other message lost its keyboard, nothing else.
    expect(b.fake.message(shown[1]?.id as string)).not.toHaveProperty("reply_markup");
  });

  it("spaces its probes by the per-chat rate limit", async () => {
    const b = await openBench({
      config: {
        ...probe,
        maxProbes: 3,
        rateLimits: { perBotPerSecond: 30, perChatPerSecond: 5, perGroupPerMinute: 600 },
      },
      delivery: {
        pollIntervalMs: 10,
        leaseMs: 5_000,
        maxInMemoryWaitMs: 2_000,
        recoveryBudgetMs: 2_000,
        maxReconcileChecks: 1,
        backoff: { baseMs: 40, maxMs: 300, maxAttempts: 8 },
      },
    });
    const { target } = b.dm();
    await b.runtime.send(b.message(target, "first"));
    b.fake.failNext({ kind: "reset_before_accept" }, { op: "send" });
    await b.runtime.enqueue(b.message(target, "second"), { idempotencyKey: "r5" });
    await b.settled("r5");
    const probes = b.fake.server.calls.filter((c) => c.path.endsWith("/editMessageReplyMarkup"));
    expect(probes).toHaveLength(3);
    for (let i = 1; i < probes.length; i++) {
      // Paced at the per-chat 200 ms, not back to back; the fake sees arrival times, which a
      // loaded machine jitters by tens of ms.
      expect((probes[i]?.at ?? 0) - (probes[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(150);
    }
  });
});
