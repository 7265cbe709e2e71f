/**
 * The parts of a Bot API `Update` herald reads, as zod schemas (loose: fields herald does not
 * read pass through untouched). A payload that does not fit fails with the field path, e.g.
 * `message.chat.id`, and is dead-lettered by herald.
 *
 * Source: https://core.telegram.org/bots/api#update, https://core.telegram.org/bots/api#message
 *
 * @module
 */
import { z } from "@herald/plugin-sdk/channel-message";

const int = z.number().int();

/** https://core.telegram.org/bots/api#user */
export const userSchema = z.looseObject({
  id: int,
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});

/** https://core.telegram.org/bots/api#chat */
export const chatSchema = z.looseObject({
  id: int,
  type: z.enum(["private", "group", "supergroup", "channel"]),
  title: z.string().optional(),
  username: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  is_forum: z.boolean().optional(),
});

/** https://core.telegram.org/bots/api#messageentity */
export const entitySchema = z.looseObject({
  type: z.string(),
  offset: int.nonnegative(),
  length: int.positive(),
  url: z.string().optional(),
  user: userSchema.optional(),
});

const file = z.looseObject({
  file_id: z.string().min(1),
  file_unique_id: z.string(),
  file_size: z.number().optional(),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
});

/** https://core.telegram.org/bots/api#message (the fields herald reads). */
export const messageSchema = z.looseObject({
  message_id: int,
  date: int,
  chat: chatSchema,
  from: userSchema.optional(),
  sender_chat: chatSchema.optional(),
  message_thread_id: int.optional(),
  is_topic_message: z.boolean().optional(),
  edit_date: int.optional(),
  text: z.string().optional(),
  entities: z.array(entitySchema).optional(),
  caption: z.string().optional(),
  caption_entities: z.array(entitySchema).optional(),
  photo: z.array(file).min(1).optional(),
  document: file.optional(),
  voice: file.optional(),
  audio: file.optional(),
  video: file.optional(),
  animation: file.optional(),
  video_note: file.optional(),
  sticker: file.optional(),
  reply_to_message: z
    .looseObject({ message_id: int, from: userSchema.optional(), chat: chatSchema.optional() })
    .optional(),
});

/** https://core.telegram.org/bots/api#callbackquery */
export const callbackQuerySchema = z.looseObject({
  id: z.string().min(1),
  from: userSchema,
  message: z
    .looseObject({
      message_id: int,
      chat: chatSchema,
      message_thread_id: int.optional(),
      is_topic_message: z.boolean().optional(),
    })
    .optional(),
  inline_message_id: z.string().optional(),
  chat_instance: z.string(),
  data: z.string().optional(),
});

/** The update fields that carry something for the bot, in the Bot API's names. */
export const MESSAGE_UPDATE_KINDS = [
  "message",
  "edited_message",
  "channel_post",
  "edited_channel_post",
] as const;

/** The kind of an inbound update. */
export type UpdateKind = (typeof MESSAGE_UPDATE_KINDS)[number] | "callback_query";

/** https://core.telegram.org/bots/api#update (the kinds herald receives). */
export const updateSchema = z
  .looseObject({
    update_id: int,
    message: messageSchema.optional(),
    edited_message: messageSchema.optional(),
    channel_post: messageSchema.optional(),
    edited_channel_post: messageSchema.optional(),
    callback_query: callbackQuerySchema.optional(),
  })
  .superRefine((u, ctx) => {
    if (!kindOf(u)) {
      ctx.addIssue({
        code: "custom",
        path: ["message"],
        message: `expected one of ${[...MESSAGE_UPDATE_KINDS, "callback_query"].join(", ")}`,
      });
    }
  });

/** A validated update. */
export type TelegramUpdate = z.infer<typeof updateSchema>;
/** A validated message. */
export type TelegramMessage = z.infer<typeof messageSchema>;

/** Which inbound kind an update (validated or raw) is, if any. */
export function kindOf(update: unknown): UpdateKind | undefined {
  if (!update || typeof update !== "object") return undefined;
  const u = update as Record<string, unknown>;
  for (const kind of MESSAGE_UPDATE_KINDS) if (u[kind] !== undefined) return kind;
  return u.callback_query !== undefined ? "callback_query" : undefined;
}

const CONTENT = [
  "text",
  "caption",
  "photo",
  "document",
  "voice",
  "audio",
  "video",
  "animation",
  "video_note",
  "sticker",
] as const;

/**
 * Whether a raw update goes to herald's receive lifecycle: a callback query, or a message
 * with content. Service messages (a member joined, a topic was created, a pin) and update
 * kinds herald does not handle are skipped. A malformed update of a known kind goes through,
 * so that it is dead-lettered with its field path rather than silently dropped.
 */
export function isInboundUpdate(update: unknown): boolean {
  const kind = kindOf(update);
  if (!kind) return false;
  if (kind === "callback_query") return true;
  const message = (update as Record<string, unknown>)[kind];
  if (!message || typeof message !== "object") return true;
  const m = message as Record<string, unknown>;
  return CONTENT.some((k) => m[k] !== undefined) || m.chat === undefined;
}

/** The `update_id` of a raw update, when it has an integer one. */
export function updateIdOf(update: unknown): number | undefined {
  const id = (update as { update_id?: unknown } | null)?.update_id;
  return typeof id === "number" && Number.isSafeInteger(id) ? id : undefined;
}
