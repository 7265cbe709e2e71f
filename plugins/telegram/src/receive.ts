/**
 * Inbound on Telegram: updates (`message`, `edited_message`, `channel_post`,
 * `edited_channel_post`, `callback_query`) become herald messages. The adapter states platform
 * facts — bot author, room shape, mentions, its own ids — and core decides (echo drop, dedupe,
 * authorization).
 *
 * - Targets: a private chat is `direct`; a group or supergroup `group`; a forum topic
 *   (`is_topic_message`) a `thread` with `threadId` = `message_thread_id`; the General topic is
 *   the group itself (no thread); a channel is `channel`.
 * - Thread anchor: the forum topic a message is in (`message_thread_id`); none elsewhere, since
 *   a bot can post into topics only (a reply chain is not a thread; the General topic is none).
 * - Ids: `<chat_id>:<message_id>` (message ids are per chat), the form receipts use too, so the
 *   outbound registry recognises the bot's own messages. The dedupe identity is that id; an
 *   edit adds `:edit:<edit_date>`; a callback query is `callback:<id>`.
 * - Mentions: a `mention` entity `@<bot username>`, a `text_mention` of the bot, a
 *   `/command@<bot username>`, or a reply to one of the bot's messages.
 * - Text is passed as written (`body.markdown` = `body.plain` = the text or caption); the
 *   entities stay in `raw`.
 *
 * @module
 */

import {
  type ChannelMessage,
  type MessageAttachment,
  type MessageEventClass,
  type MessageReceiveAdapter,
  type MessageTarget,
  type NormalizeResult,
  parseInbound,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { actionOf } from "./actions.ts";
import type { OutboundLedger } from "./ledger.ts";
import { isReactionUpdate, reactionOf } from "./reactions.ts";
import { messageRef, parseMessageRef } from "./send.ts";
import { serviceUpdate } from "./service.ts";
import { targetOf } from "./target.ts";
import {
  isInboundUpdate,
  kindOf,
  type TelegramMessage,
  type TelegramUpdate,
  type UpdateKind,
  updateSchema,
} from "./updates.ts";

/** The channel id of Telegram. */
export const TELEGRAM_CHANNEL_ID = "telegram";

/** Who the bot is: its id (from the token) and its username (config, else `getMe` once). */
export class BotIdentity {
  readonly id: string;
  readonly #api: Api;
  #username: Promise<string | undefined> | undefined;

  constructor(id: string, api: Api, username?: string) {
    this.id = id;
    this.#api = api;
    if (username) this.#username = Promise.resolve(username.replace(/^@/, ""));
  }

  /** The username without `@`; `undefined` when `getMe` failed (asked again next time). */
  username(): Promise<string | undefined> {
    this.#username ??= this.#api.getMe().then(
      (me) => me.username,
      () => {
        this.#username = undefined;
        return undefined;
      },
    );
    return this.#username;
  }
}

function nameOf(u: {
  first_name?: string | undefined;
  last_name?: string | undefined;
  title?: string | undefined;
}): string | undefined {
  const name = [u.first_name, u.last_name].filter(Boolean).join(" ") || u.title;
  return name || undefined;
}

function attachmentsOf(m: TelegramMessage): MessageAttachment[] {
  const out: MessageAttachment[] = [];
  const add = (kind: MessageAttachment["kind"], f: NonNullable<TelegramMessage["document"]>) =>
    out.push({
      kind,
      platformFileId: f.file_id,
      ...(f.file_name ? { name: f.file_name } : {}),
      ...(f.mime_type ? { mimeType: f.mime_type } : {}),
      ...(f.file_size !== undefined ? { sizeBytes: f.file_size } : {}),
    });
  const largest = m.photo?.at(-1);
  if (largest) add("image", largest);
  if (m.document) add("file", m.document);
  if (m.voice) add("voice", m.voice);
  if (m.audio) add("audio", m.audio);
  if (m.video) add("video", m.video);
  if (m.animation) add("video", m.animation);
  if (m.video_note) add("video", m.video_note);
  if (m.sticker) add("sticker", m.sticker);
  return out;
}

function mentionsSelf(m: TelegramMessage, botId: string, username: string | undefined): boolean {
  if (m.reply_to_message?.from && String(m.reply_to_message.from.id) === botId) {
    // In a forum topic the topic's first message is the implicit reply target; it is not the bot's.
    if (!(m.is_topic_message && m.reply_to_message.message_id === m.message_thread_id)) return true;
  }
  const text = m.text ?? m.caption ?? "";
  const handle = username ? `@${username.toLowerCase()}` : undefined;
  for (const e of m.entities ?? m.caption_entities ?? []) {
    const slice = text.slice(e.offset, e.offset + e.length).toLowerCase();
    if (e.type === "text_mention" && e.user && String(e.user.id) === botId) return true;
    if (e.type === "mention" && handle && slice === handle) return true;
    if (e.type === "bot_command" && handle && slice.endsWith(handle)) return true;
  }
  return false;
}

function fromMessage(
  kind: Exclude<UpdateKind, "callback_query">,
  m: TelegramMessage,
  raw: unknown,
  botId: string,
  username: string | undefined,
): ChannelMessage {
  const chat = String(m.chat.id);
  const ref = messageRef(chat, m.message_id);
  const edited = kind === "edited_message" || kind === "edited_channel_post";
  const author = m.from
    ? { id: String(m.from.id), isBot: m.from.is_bot, ...named(nameOf(m.from)) }
    : m.sender_chat
      ? { id: String(m.sender_chat.id), isBot: false, ...named(nameOf(m.sender_chat)) }
      : undefined;
  const text = m.text ?? m.caption ?? "";
  const target = targetOf(m);
  const replyTo = m.reply_to_message;
  const isTopicRoot = m.is_topic_message && replyTo?.message_id === m.message_thread_id;
  const attachments = attachmentsOf(m);
  return {
    id: `${TELEGRAM_CHANNEL_ID}:${ref}${edited ? `:edit:${m.edit_date ?? m.date}` : ""}`,
    channel: TELEGRAM_CHANNEL_ID,
    direction: "inbound",
    target,
    ...(author ? { sender: author } : {}),
    body: { markdown: text, plain: text },
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(replyTo && !isTopicRoot
      ? {
          relation: {
            kind: "reply" as const,
            replyToId: messageRef(String(replyTo.chat?.id ?? chat), replyTo.message_id),
            ...(target.threadId ? { threadId: target.threadId } : {}),
          },
        }
      : {}),
    platformMessageId: ref,
    // A thread under a message exists only as a forum topic: the topic it is in (none elsewhere).
    ...(target.threadId ? { threadAnchor: { threadId: target.threadId } } : {}),
    timestamp: ((edited ? m.edit_date : undefined) ?? m.date) * 1_000,
    mentions: { self: mentionsSelf(m, botId, username) },
    raw,
  };
}

function named(name: string | undefined): { displayName?: string } {
  return name ? { displayName: name } : {};
}

function fromCallback(
  q: NonNullable<TelegramUpdate["callback_query"]>,
  raw: unknown,
  receivedAt: number,
): ChannelMessage {
  const target: MessageTarget = q.message
    ? targetOf(q.message)
    : { kind: "direct", id: String(q.from.id) };
  return {
    id: `${TELEGRAM_CHANNEL_ID}:callback:${q.id}`,
    channel: TELEGRAM_CHANNEL_ID,
    direction: "inbound",
    target,
    sender: { id: String(q.from.id), isBot: q.from.is_bot, ...named(nameOf(q.from)) },
    body: { markdown: q.data ?? "", plain: q.data ?? "" },
    ...(q.message
      ? {
          relation: {
            kind: "reply" as const,
            replyToId: messageRef(String(q.message.chat.id), q.message.message_id),
            ...(target.threadId ? { threadId: target.threadId } : {}),
          },
        }
      : {}),
    platformMessageId: `callback:${q.id}`,
    timestamp: receivedAt,
    // Pressing the bot's button addresses the bot.
    mentions: { self: true },
    raw,
  };
}

/**
 * The receive adapter.
 *
 * @param identity - the bot's id and username.
 * @param ledger - messages this process sent (a message listed there is the bot's own, even
 *   without a `from`, such as a channel post).
 */
export function createReceive(
  identity: BotIdentity,
  ledger: OutboundLedger,
): MessageReceiveAdapter {
  return {
    async normalize(raw, ctx): Promise<NormalizeResult> {
      if (isReactionUpdate(raw))
        return reactionOf(TELEGRAM_CHANNEL_ID, raw, identity.id, ctx.accountId);
      if (raw && typeof raw === "object" && !isInboundUpdate(raw))
        return serviceUpdate(raw, ctx.accountId);
      const update = parseInbound(updateSchema, raw, TELEGRAM_CHANNEL_ID);
      const kind = kindOf(update) as UpdateKind;
      if (kind === "callback_query" && update.callback_query) {
        // A pressed inline button ([H23]): an action, answered by the receiver.
        const action = actionOf(TELEGRAM_CHANNEL_ID, update.callback_query, raw, ctx.receivedAt);
        return ctx.accountId !== undefined ? { ...action, accountId: ctx.accountId } : action;
      }
      const message =
        kind === "callback_query"
          ? fromCallback(
              update.callback_query as NonNullable<TelegramUpdate["callback_query"]>,
              raw,
              ctx.receivedAt,
            )
          : await (async () => {
              const m = update[kind] as TelegramMessage;
              const needsName = (m.entities ?? m.caption_entities ?? []).some(
                (e) => e.type === "mention" || e.type === "bot_command",
              );
              const username = needsName ? await identity.username() : undefined;
              return fromMessage(kind, m, raw, identity.id, username);
            })();
      return ctx.accountId !== undefined ? { ...message, accountId: ctx.accountId } : message;
    },

    classify(message, raw): MessageEventClass {
      const kind = kindOf(raw) ?? "message";
      const ids = message.sender ? [message.sender.id] : [];
      // `platformMessageId` is the ref normalize made (`<chat>:<message_id>`).
      const ref =
        kind !== "callback_query" && message.platformMessageId !== undefined
          ? parseMessageRef(message.platformMessageId, "")
          : undefined;
      const own = ref !== undefined && ref.chat !== "" && ledger.isOwn(ref.chat, ref.id);
      return {
        eventType: kind,
        eventTypes: [kind],
        isBotAuthor: message.sender?.isBot === true || own,
        isRoomish: message.target.kind !== "direct",
        mentionsSelf: message.mentions?.self === true,
        isEdit: kind === "edited_message" || kind === "edited_channel_post",
        authorIds: own ? [...ids, identity.id] : ids,
      };
    },

    dedupeIdentity(message) {
      // `id` is `telegram:<chat>:<message>[:edit:<date>]` or `telegram:callback:<id>`.
      return message.id.slice(TELEGRAM_CHANNEL_ID.length + 1);
    },

    selfIds: () => [identity.id],
  };
}
