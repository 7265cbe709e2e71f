/**
 * Buttons on Telegram ([H23]) through grammY against the fake: `actions` as an inline keyboard
 * (callback_data = id), a press answered with answerCallbackQuery and handed once to the action
 * handler, an id over 64 bytes refused before any call.
 */
import type { InboundAction } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { keyboardOf } from "./actions.ts";
import { TelegramRenderError } from "./errors.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeTelegram.ts";

describe("buttons (H23)", () => {
  it("H23 actions: an inline keyboard with callback_data = id; a press is answered and reaches the action handler once (a redelivery is deduped)", async () => {
    const b = await openBench();
    const clicks: InboundAction[] = [];
    b.runtime.onAction((a) => {
      clicks.push(a);
    });
    const { chat, target } = b.dm();
    await b.runtime.enqueue(
      b.message(target, "Deploy to prod?", {
        actions: [
          { kind: "button", id: "approve", label: "Approve" },
          { kind: "button", id: "reject", label: "Reject" },
          { kind: "link", label: "Runbook", url: "https://example.com/runbook" },
        ],
      }),
      { idempotencyKey: "h23-telegram-buttons" },
    );
    expect((await b.settled("h23-telegram-buttons")).status).toBe("sent");
    const [sent] = b.fake.messages(chat.id, { authorId: FAKE_BOT.id });
    const stored = b.fake.message(sent?.id as string) as Record<string, unknown>;
    expect(stored.reply_markup).toEqual({
      inline_keyboard: [
        [
          { text: "Approve", callback_data: "approve" },
          { text: "Reject", callback_data: "reject" },
          { text: "Runbook", url: "https://example.com/runbook" },
        ],
      ],
    });
    await b.startReceiver();
    const press = {
      callback_query: {
        id: "cb-h23",
        from: ALICE,
        chat_instance: "1",
        data: "approve",
        message: stored,
      },
    };
    b.fake.pushUpdate(press);
    await eventually(
      () => clicks.length,
      (n) => n === 1,
      { what: "the press handled" },
    );
    // Telegram delivers the same query again (a new update_id): the same click.
    b.fake.pushUpdate({ callback_query: { ...press.callback_query } });
    await eventually(
      () => b.fake.server.calls.filter((c) => c.path.endsWith("/answerCallbackQuery")).length,
      (n) => n >= 1,
      { what: "answerCallbackQuery" },
    );
    await eventually(
      () => b.outcomes.length,
      (n) => n >= 2,
      { what: "both deliveries settled" },
    );
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({
      kind: "action",
      channel: "telegram",
      accountId: "main",
      target: { kind: "direct", id: String(chat.id) },
      sender: { id: String(ALICE.id) },
      actionId: "approve",
      messageId: `${chat.id}:${sent?.id}`,
    });
  });

  it("H23 actions: a button id over 64 bytes (callback_data) is a TelegramRenderError naming it, nothing sent", async () => {
    const long = "é".repeat(33); // 66 bytes
    expect(() => keyboardOf([{ kind: "button", id: long, label: "Go" }])).toThrow(
      TelegramRenderError,
    );
    expect(() => keyboardOf([{ kind: "button", id: long, label: "Go" }])).toThrow(
      /actions\[0\]\.id is 66 bytes/,
    );
    const b = await openBench();
    const { target } = b.dm();
    await expect(
      b.runtime.send(
        b.message(target, "x", { actions: [{ kind: "button", id: long, label: "Go" }] }),
        { idempotencyKey: "h23-telegram-long-id" },
      ),
    ).rejects.toThrow(/callback_data/);
    expect(b.fake.server.calls.filter((c) => c.op === "send")).toHaveLength(0);
  });
});
