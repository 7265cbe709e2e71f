import type { ChannelMessage } from "@herald/plugin-sdk/channel-message";
import { ReceiveValidationError } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { createTelegramApi } from "./client.ts";
import { OutboundLedger } from "./ledger.ts";
import { BotIdentity, createReceive } from "./receive.ts";
import {
  callbackQueryUpdate,
  channelPostUpdate,
  editedMessageUpdate,
  FIXTURE_BOT,
  forumTopicUpdate,
  groupMentionUpdate,
  photoWithCaptionUpdate,
  privateTextUpdate,
} from "./testing/fixtures.ts";
import { isInboundUpdate } from "./updates.ts";

// getMe is never called: the username is given.
const api = createTelegramApi({ token: FIXTURE_BOT.token, apiRoot: "http://127.0.0.1:9" });
const ledger = new OutboundLedger();
const adapter = createReceive(
  new BotIdentity(String(FIXTURE_BOT.id), api, FIXTURE_BOT.username),
  ledger,
);
const ctx = { channel: "telegram", accountId: "main", receivedAt: 1_700_000_000_000 };
const normalizeAny = (raw: unknown) => adapter.normalize(raw, ctx);
const normalize = async (raw: unknown) => (await normalizeAny(raw)) as ChannelMessage;
const classify = async (raw: unknown) => adapter.classify?.(await normalize(raw), raw);

describe("normalizing Bot API updates", () => {
  it("private text → a direct message from the user, the update's raw kept", async () => {
    expect(await normalize(privateTextUpdate)).toEqual({
      id: "telegram:1111111:1365",
      channel: "telegram",
      accountId: "main",
      direction: "inbound",
      target: { kind: "direct", id: "1111111", label: "Test" },
      sender: { id: "1111111", isBot: false, displayName: "Test Lastname" },
      body: { markdown: "/start", plain: "/start" },
      platformMessageId: "1111111:1365",
      timestamp: 1441645532_000,
      mentions: { self: false },
      raw: privateTextUpdate,
    });
    expect(await classify(privateTextUpdate)).toMatchObject({
      eventType: "message",
      isRoomish: false,
      isBotAuthor: false,
    });
  });

  it("group text with a mention entity of the bot → mentions self; a text_mention of someone else does not", async () => {
    const m = await normalize(groupMentionUpdate);
    expect(m).toMatchObject({
      target: { kind: "group", id: "-1001234567890", label: "Project chat" },
      mentions: { self: true },
      body: { markdown: "@herald_test_bot please ask Bob" },
    });
    const other = structuredClone(groupMentionUpdate);
    other.message.text = "@someone_else please ask Bob";
    expect((await normalize(other)).mentions).toEqual({ self: false });
    const textMention = structuredClone(groupMentionUpdate);
    textMention.message.entities = [
      {
        type: "text_mention",
        offset: 28,
        length: 3,
        user: { id: FIXTURE_BOT.id, is_bot: true, first_name: "herald test" },
      },
    ];
    expect((await normalize(textMention)).mentions).toEqual({ self: true });
  });

  it("forum topic message → a thread target with message_thread_id, no reply to the topic root", async () => {
    const m = await normalize(forumTopicUpdate);
    expect(m.target).toEqual({
      kind: "thread",
      id: "-1009876543210",
      label: "Support forum",
      parentId: "-1009876543210",
      threadId: "42",
    });
    expect(m.relation).toBeUndefined();
    expect(m.mentions).toEqual({ self: false });
  });

  it("General topic (no thread id) → the group itself", async () => {
    const general = structuredClone(forumTopicUpdate) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    delete general.message?.message_thread_id;
    delete general.message?.is_topic_message;
    delete general.message?.reply_to_message;
    expect((await normalize(general)).target).toEqual({
      kind: "group",
      id: "-1009876543210",
      label: "Support forum",
    });
  });

  // Found by mutation testing (`is_topic_message && …` → `||` survived): in a supergroup that is
  // not a forum, a reply carries `message_thread_id` (the id of the message that started its
  // reply thread) without `is_topic_message` — Bot API "Message": message_thread_id "for
  // supergroups only", is_topic_message "True, if the message is sent to a forum topic". Only a
  // forum topic is a thread.
  it("a reply in a non-forum supergroup (message_thread_id, no is_topic_message) → the group", async () => {
    const reply = structuredClone(forumTopicUpdate) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    delete reply.message?.is_topic_message;
    expect(reply.message?.message_thread_id).toBeDefined();
    expect((await normalize(reply)).target).toMatchObject({
      kind: "group",
      id: "-1009876543210",
    });
  });

  it("photo with caption → the caption as text and the largest size as an image attachment", async () => {
    const m = await normalize(photoWithCaptionUpdate);
    expect(m.body).toEqual({ markdown: "Receipt for March", plain: "Receipt for March" });
    expect(m.attachments).toEqual([
      { kind: "image", platformFileId: "AgAD-large", sizeBytes: 61234 },
    ]);
  });

  it("edited message → its own identity, an edit event, the edit time", async () => {
    const m = await normalize(editedMessageUpdate);
    expect(m).toMatchObject({
      id: "telegram:1111111:1365:edit:1441645900",
      platformMessageId: "1111111:1365",
      timestamp: 1441645900_000,
      body: { markdown: "/start again" },
    });
    const event = await classify(editedMessageUpdate);
    expect(event).toMatchObject({ eventType: "edited_message", isEdit: true });
    expect(adapter.dedupeIdentity?.(m, event as never)).toBe("1111111:1365:edit:1441645900");
  });

  it("H23 callback query → an InboundAction: the button's callback_data from the presser, on the bot's message", async () => {
    const m = await normalize(callbackQueryUpdate);
    expect(m).toMatchObject({
      kind: "action",
      id: "callback:4382bfdwdsb323b2d9",
      target: { kind: "direct", id: "1111111" },
      sender: { id: "1111111", isBot: false },
      actionId: "deploy:yes",
      messageId: "1111111:1367",
      timestamp: ctx.receivedAt,
      ack: "answerCallbackQuery",
    });
  });

  it("channel post → a channel target authored by the channel", async () => {
    const m = await normalize(channelPostUpdate);
    expect(m).toMatchObject({
      target: { kind: "channel", id: "-1005555555555", label: "Release notes" },
      sender: { id: "-1005555555555", isBot: false, displayName: "Release notes" },
      body: { markdown: "v2.1 is out" },
    });
    expect(await classify(channelPostUpdate)).toMatchObject({
      eventType: "channel_post",
      isRoomish: true,
    });
  });

  it("recognises the bot's own messages by from.id and by the outbound ledger", async () => {
    expect(adapter.selfIds?.("main")).toEqual([String(FIXTURE_BOT.id)]);
    ledger.begin("-1005555555555", "k#0");
    ledger.landed("-1005555555555", "k#0", 310);
    expect(await classify(channelPostUpdate)).toMatchObject({
      isBotAuthor: true,
      authorIds: ["-1005555555555", String(FIXTURE_BOT.id)],
    });
  });

  it("rejects a malformed update with a typed error naming the field path", async () => {
    const broken = structuredClone(privateTextUpdate) as { message: { chat: { id: unknown } } };
    broken.message.chat.id = "not a number";
    const error = await Promise.resolve(normalize(broken)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReceiveValidationError);
    expect((error as ReceiveValidationError).message).toContain("message.chat.id");
    await expect(normalize({ update_id: 5, message: {} })).rejects.toThrow(/message\./);
  });

  it("answers update kinds herald does not handle and service messages with ignore(reason), never a silent drop", async () => {
    expect(await normalizeAny({ update_id: 5, poll: {} })).toEqual({
      kind: "ignore",
      reason: "unsupported_update",
      detail: "poll",
    });
    expect(
      await normalizeAny({
        update_id: 6,
        message: { message_id: 9, date: 1, chat: { id: -5, type: "group" }, pinned_message: {} },
      }),
    ).toEqual({ kind: "ignore", reason: "service_message", detail: "message.pinned_message" });
  });

  it("turns new_chat_members / left_chat_member into member_joined / member_left events", async () => {
    const chat = { id: -100, type: "supergroup", title: "team" };
    const bob = { id: 77, is_bot: false, first_name: "Bob" };
    expect(
      await normalizeAny({
        update_id: 7,
        message: { message_id: 3, date: 1_700_000_000, chat, from: bob, new_chat_members: [bob] },
      }),
    ).toMatchObject({
      kind: "event",
      type: "member_joined",
      id: "member_joined:-100:3",
      accountId: "main",
      target: { kind: "group", id: "-100" },
      members: [{ id: "77", displayName: "Bob" }],
      timestamp: 1_700_000_000_000,
    });
    expect(
      await normalizeAny({
        update_id: 8,
        message: { message_id: 4, date: 1, chat, from: bob, left_chat_member: bob },
      }),
    ).toMatchObject({ kind: "event", type: "member_left", members: [{ id: "77" }] });
    // A malformed membership message is dead-lettered with its path, not ignored.
    await expect(
      normalizeAny({
        update_id: 9,
        message: { message_id: 5, date: 1, chat, new_chat_members: [{ id: "x" }] },
      }),
    ).rejects.toThrow(/new_chat_members/);
  });

  it("skips service messages and unhandled update kinds, but lets malformed ones through to be dead-lettered", () => {
    expect(isInboundUpdate(privateTextUpdate)).toBe(true);
    expect(isInboundUpdate(callbackQueryUpdate)).toBe(true);
    expect(
      isInboundUpdate({
        update_id: 1,
        message: { message_id: 1, date: 1, chat: { id: 1, type: "group" }, new_chat_members: [] },
      }),
    ).toBe(false);
    expect(isInboundUpdate({ update_id: 1, my_chat_member: {} })).toBe(false);
    expect(isInboundUpdate({ update_id: 1, message: "garbage" })).toBe(true);
  });
});
