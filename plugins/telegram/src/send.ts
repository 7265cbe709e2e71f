/**
 * Sending, editing and deleting on Telegram. One unit is one Bot API call, one message.
 * Message ids are per chat on Telegram, so herald names a message `<chat_id>:<message_id>`
 * (receipts, the outbound registry and inbound messages use the same form).
 *
 * Forum topics: every call for a topic carries `message_thread_id`, except for the General
 * topic (id 1), which Telegram only accepts without one (tdlib/telegram-bot-api#798). A topic
 * that is gone fails as `not_found`; the message is never moved to another chat.
 *
 * @module
 */
import type { MessageEntity } from "@grammyjs/types";
import {
  composeRef,
  type MessageReceiptPart,
  type MessageSendAdapter,
  type MessageSendContext,
  type MessageTarget,
  parseRef,
  quotedReplyId,
  type RenderedMessageUnit,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { InputFile } from "grammy";
import { grammySignal } from "./client.ts";
import { classifyError, TelegramApiError, TelegramRenderError } from "./errors.ts";
import type { OutboundLedger } from "./ledger.ts";
import type { TelegramMediaSource, TelegramUnitPayload } from "./render.ts";

/** The id of the General topic of a forum: sent without `message_thread_id`. */
export const GENERAL_TOPIC_ID = 1;

/** The Telegram chat id of a target (`nativeChannelId` when set). */
export function chatIdOf(target: MessageTarget): string {
  return target.nativeChannelId ?? target.id;
}

/** A chat id as the Bot API takes it: a number, or an `@channelusername`. */
export function chatParam(chat: string): number | string {
  return /^-?\d+$/.test(chat) ? Number(chat) : chat;
}

/** herald's id of a Telegram message: the ref `<chat_id>:<message_id>` (`composeRef`). */
export function messageRef(chat: string, messageId: number): string {
  return composeRef(chat, String(messageId));
}

/**
 * Splits `<chat_id>:<message_id>` (a bare `<message_id>` belongs to `fallbackChat`).
 * @throws MalformedRefError when the ref is malformed.
 * @throws TelegramRenderError when the message id is not an integer.
 */
export function parseMessageRef(ref: string, fallbackChat: string): { chat: string; id: number } {
  const parsed = parseRef(ref, { fallbackContainer: fallbackChat, label: "Telegram message ref" });
  const id = Number(parsed.id);
  if (!Number.isSafeInteger(id)) throw new TelegramRenderError(`not a Telegram message id: ${ref}`);
  return { chat: parsed.container, id };
}

/**
 * The `message_thread_id` of a send: the target's thread, else the reply relation's; none for
 * the General topic.
 * @throws TelegramRenderError when the thread id is not an integer.
 */
export function threadParamOf(ctx: MessageSendContext): number | undefined {
  const { target, relation } = ctx.message;
  const thread = target.threadId ?? (relation?.kind === "reply" ? relation.threadId : undefined);
  if (thread === undefined || thread === "") return undefined;
  const id = Number(thread);
  if (!Number.isSafeInteger(id)) throw new TelegramRenderError(`not a forum topic id: ${thread}`);
  return id === GENERAL_TOPIC_ID ? undefined : id;
}

/** `reply_parameters` of a send: only for placement `quote`, Telegram's default. */
function replyParametersOf(ctx: MessageSendContext, unit: RenderedMessageUnit, chat: string) {
  const replyToId = quotedReplyId(ctx, unit);
  if (!replyToId) return undefined;
  const ref = parseMessageRef(replyToId, chat);
  return {
    message_id: ref.id,
    ...(ref.chat !== chat ? { chat_id: chatParam(ref.chat) } : {}),
    // A deleted original must not fail the answer.
    allow_sending_without_reply: true,
  };
}

function inputOf(source: TelegramMediaSource): string | InputFile {
  if ("fileId" in source) return source.fileId;
  if ("url" in source) return source.url;
  return new InputFile(source.path, source.fileName);
}

type Sent = { message_id?: number } | true | undefined;

async function sendPayload(
  api: Api,
  chat: number | string,
  payload: TelegramUnitPayload,
  common: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Sent> {
  const markup = payload.replyMarkup ? { reply_markup: payload.replyMarkup } : {};
  if (payload.type === "text") {
    return api.sendMessage(
      chat,
      payload.text,
      { entities: payload.entities, ...common, ...markup },
      grammySignal(signal),
    );
  }
  const caption =
    payload.caption !== undefined
      ? { caption: payload.caption, caption_entities: payload.captionEntities ?? [] }
      : {};
  const other = { ...common, ...markup, ...caption };
  const file = inputOf(payload.source);
  switch (payload.method) {
    case "sendPhoto":
      return api.sendPhoto(chat, file, other, grammySignal(signal));
    case "sendDocument":
      return api.sendDocument(chat, file, other, grammySignal(signal));
    case "sendVoice":
      return api.sendVoice(chat, file, other, grammySignal(signal));
    case "sendAudio":
      return api.sendAudio(chat, file, other, grammySignal(signal));
    case "sendVideo":
      return api.sendVideo(chat, file, other, grammySignal(signal));
    case "sendSticker":
      return api.sendSticker(chat, file, { ...common, ...markup }, grammySignal(signal));
  }
}

/** What the send adapter needs. */
export type SendDeps = {
  api: Api;
  ledger: OutboundLedger;
  /** The bot token, redacted from classified failure messages. */
  token: string;
};

/**
 * The send adapter. `send` calls `sendMessage` / `sendPhoto` / … with `reply_parameters` on
 * the first unit and `message_thread_id` on every unit of a topic; `edit` calls
 * `editMessageText` (text) or `editMessageCaption` (media), and an answer "message is not
 * modified" is success; `delete` calls `deleteMessage`.
 */
export function createSend(deps: SendDeps): MessageSendAdapter {
  const { api, ledger, token } = deps;
  return {
    async send(ctx, unit) {
      const chat = chatIdOf(ctx.message.target);
      const thread = threadParamOf(ctx);
      const reply = replyParametersOf(ctx, unit, chat);
      const common = {
        ...(thread !== undefined ? { message_thread_id: thread } : {}),
        ...(reply ? { reply_parameters: reply } : {}),
      };
      const key = ctx.unitIdempotencyKey;
      ledger.begin(chat, key);
      let sent: Sent;
      try {
        sent = await sendPayload(
          api,
          chatParam(chat),
          unit.payload as TelegramUnitPayload,
          common,
          ctx.signal,
        );
      } catch (error) {
        ledger.failed(chat, key, classifyError(error).evidence === "maybe_sent");
        throw error;
      }
      const id = typeof sent === "object" ? sent.message_id : undefined;
      if (typeof id !== "number") {
        // Accepted, but answered without a message id (CASES C12): it exists somewhere.
        ledger.landedWithoutId(chat, key);
        return { platformMessageId: "", kind: unit.kind, index: unit.index };
      }
      ledger.landed(chat, key, id);
      return partOf(chat, id, unit, thread, reply?.message_id);
    },

    async edit(ctx, target, unit) {
      const { chat, id } = parseMessageRef(target.platformMessageId, chatIdOf(ctx.message.target));
      const payload = unit.payload as TelegramUnitPayload;
      const markup = payload.replyMarkup ? { reply_markup: payload.replyMarkup } : {};
      try {
        if (payload.type === "text") {
          if (target.kind === "media" || target.kind === "voice") {
            await api.editMessageCaption(
              chatParam(chat),
              id,
              { caption: payload.text, caption_entities: payload.entities, ...markup },
              grammySignal(ctx.signal),
            );
          } else {
            await api.editMessageText(
              chatParam(chat),
              id,
              payload.text,
              { entities: payload.entities, ...markup },
              grammySignal(ctx.signal),
            );
          }
        } else {
          if (target.kind === "text") {
            throw new TelegramRenderError(
              "a text message cannot become media: send the media as a new message",
            );
          }
          await api.editMessageCaption(
            chatParam(chat),
            id,
            {
              caption: payload.caption ?? "",
              caption_entities: payload.captionEntities ?? ([] as MessageEntity[]),
              ...markup,
            },
            grammySignal(ctx.signal),
          );
        }
      } catch (error) {
        // Same content as shown: the edit changed nothing, which is what was asked (C14).
        if (!(error instanceof TelegramApiError && error.notModified)) throw error;
      }
      return { ...target, kind: unit.kind, index: unit.index };
    },

    async delete(ctx, target) {
      const { chat, id } = parseMessageRef(target.platformMessageId, chatIdOf(ctx.message.target));
      await api.deleteMessage(chatParam(chat), id, grammySignal(ctx.signal));
    },

    classifyError: (error) => classifyError(error, token),
  };
}

function partOf(
  chat: string,
  id: number,
  unit: RenderedMessageUnit,
  thread: number | undefined,
  replyTo: number | undefined,
): MessageReceiptPart {
  return {
    platformMessageId: messageRef(chat, id),
    kind: unit.kind,
    index: unit.index,
    ...(thread !== undefined ? { threadId: String(thread) } : {}),
    ...(replyTo !== undefined ? { replyToId: messageRef(chat, replyTo) } : {}),
  };
}
