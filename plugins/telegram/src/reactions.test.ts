/**
 * Reactions on Telegram ([H23]) through grammY against the fake: `setMessageReaction` sets the
 * bot's whole list (a replay sets the same list: still on), a remove sets `[]`, an emoji
 * Telegram does not offer is a typed failure; `message_reaction` updates reach the reaction
 * handler once each (deduped by `update_id`), and `allowed_updates` asks for them.
 */
import type { InboundReaction } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { TELEGRAM_ALLOWED_UPDATES } from "./config.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeTelegram.ts";
import { telegramReactionsOn } from "./testing/fakeReactions.ts";

describe("reactions (H23)", () => {
  it("H23 react: setMessageReaction sets [👀]; a reset after Telegram applied it is replayed, still on; a remove sets []", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const { message } = b.fake.userPost({ chat: chat.id, text: "deploy?" });
    const id = message.message_id as number;
    const messageId = `${chat.id}:${id}`;
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "react" });
    const receipt = await b.runtime.react({
      channel: "telegram",
      accountId: "main",
      target,
      messageId,
      emoji: "👀",
      idempotencyKey: "h23-telegram-react",
    });
    expect(receipt.parts[0]).toMatchObject({ kind: "reaction", replyToId: messageId });
    expect(telegramReactionsOn(b.fake, id)).toEqual({ [FAKE_BOT.id]: ["👀"] });
    expect(b.fake.server.calls.filter((c) => c.op === "react")).toHaveLength(2);
    // The same add as another operation: the same list, still on.
    await b.runtime.react({
      channel: "telegram",
      accountId: "main",
      target,
      messageId,
      emoji: "👀",
      idempotencyKey: "h23-telegram-react-again",
    });
    expect(telegramReactionsOn(b.fake, id)).toEqual({ [FAKE_BOT.id]: ["👀"] });
    await b.runtime.react({
      channel: "telegram",
      accountId: "main",
      target,
      messageId,
      emoji: "👀",
      remove: true,
      idempotencyKey: "h23-telegram-unreact",
    });
    expect(telegramReactionsOn(b.fake, id)).toEqual({});
  });

  it("H23 react: an emoji Telegram does not offer as a reaction is a typed failure (REACTION_INVALID)", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const { message } = b.fake.userPost({ chat: chat.id, text: "deploy?" });
    await expect(
      b.runtime.react({
        channel: "telegram",
        accountId: "main",
        target,
        messageId: `${chat.id}:${message.message_id}`,
        emoji: "🦖",
        idempotencyKey: "h23-telegram-invalid",
      }),
    ).rejects.toThrow(/REACTION_INVALID/);
  });

  it("H23 inbound: message_reaction updates reach the reaction handler once each; a redelivered update is deduped", async () => {
    expect(TELEGRAM_ALLOWED_UPDATES).toContain("message_reaction");
    const b = await openBench();
    const seen: InboundReaction[] = [];
    b.runtime.onReaction((r) => {
      seen.push(r);
    });
    const { chat } = b.dm();
    const { message } = b.fake.userPost({ chat: chat.id, text: "ship it" });
    const id = message.message_id as number;
    const chatJson = b.fake.chatJson(chat);
    const update = (updateId: number, old: string[], now: string[]) => ({
      update_id: updateId,
      message_reaction: {
        chat: chatJson,
        message_id: id,
        user: ALICE,
        date: Math.floor(Date.now() / 1_000),
        old_reaction: old.map((emoji) => ({ type: "emoji", emoji })),
        new_reaction: now.map((emoji) => ({ type: "emoji", emoji })),
      },
    });
    const added = update(9_001, [], ["🎉"]);
    const o1 = await b.runtime.receive(added, { channel: "telegram", accountId: "main" }).done;
    const o2 = await b.runtime.receive(added, { channel: "telegram", accountId: "main" }).done;
    const o3 = await b.runtime.receive(update(9_002, ["🎉"], []), {
      channel: "telegram",
      accountId: "main",
    }).done;
    expect([o1.status, o2.status, o3.status]).toEqual(["interaction", "duplicate", "interaction"]);
    await eventually(
      () => seen.length,
      (n) => n === 2,
    );
    expect(seen[0]).toMatchObject({
      kind: "reaction",
      channel: "telegram",
      accountId: "main",
      target: { kind: "direct", id: String(chat.id) },
      sender: { id: String(ALICE.id) },
      messageId: `${chat.id}:${id}`,
      emoji: "🎉",
      removed: false,
    });
    expect(seen[1]).toMatchObject({ emoji: "🎉", removed: true });
  });
});
