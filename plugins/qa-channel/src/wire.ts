/**
 * The QA platform's wire format (its own vocabulary: `chat_id`, `thread_id`, `client_key`,
 * `retry_after_ms`), shared by the platform server and the channel's client. Nothing past the
 * adapter sees these names.
 *
 * @module
 */
import { z } from "@herald/plugin-sdk/channel-message";

/** A chat's shape on the QA platform. */
export const qaChatTypeSchema = z.enum(["direct", "group"]);

/** A file on the QA platform (uploaded with `POST /api/v1/files`). `size` in bytes. */
export const qaFileSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  mime_type: z.string(),
  size: z.number().int().nonnegative(),
});
export type QaWireFile = z.infer<typeof qaFileSchema>;

/** A button (with `id`) or a link button (with `url`) under a QA message. */
export const qaButtonSchema = z.object({
  id: z.string().min(1).max(64).optional(),
  label: z.string().min(1).max(80),
  value: z.string().max(2000).optional(),
  style: z.enum(["primary", "danger"]).optional(),
  url: z.string().optional(),
});
export type QaWireButton = z.infer<typeof qaButtonSchema>;

/** A message as the QA platform's API returns it. */
export const qaMessageSchema = z.object({
  id: z.string().min(1),
  chat_id: z.string().min(1),
  chat_type: qaChatTypeSchema,
  thread_id: z.string().optional(),
  reply_to_id: z.string().optional(),
  text: z.string(),
  author: z.object({ id: z.string().min(1), name: z.string().optional(), is_bot: z.boolean() }),
  client_key: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** Epoch ms. */
  created_at: z.number(),
  /** Epoch ms of the last edit. */
  edited_at: z.number().optional(),
  deleted: z.boolean().optional(),
  /** Files on the message (one per message when a bot posts them). */
  files: z.array(qaFileSchema).optional(),
  buttons: z.array(qaButtonSchema).optional(),
  /** Reactions: emoji → ids of the users who reacted. */
  reactions: z.record(z.string(), z.array(z.string())).optional(),
});
export type QaWireMessage = z.infer<typeof qaMessageSchema>;

/** Event types of the bot event stream (`GET /api/v1/events`). */
export const qaEventTypeSchema = z.enum([
  "message.created",
  "message.edited",
  "message.deleted",
  "reaction.added",
  "reaction.removed",
  "action.clicked",
]);

/** Who did something on the QA platform. */
const qaUserSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  is_bot: z.boolean(),
});

/** One event of the bot event stream; `seq` increases by one per event. */
export const qaEventSchema = z.object({
  seq: z.number().int().positive(),
  type: qaEventTypeSchema,
  /** The message concerned (created, edited, deleted, reacted to, clicked). */
  message: qaMessageSchema,
  /** `reaction.added` / `reaction.removed`: what and who. */
  reaction: z.object({ emoji: z.string().min(1), user: qaUserSchema, at: z.number() }).optional(),
  /** `action.clicked`: the click (`id` unique per click) and who clicked. */
  action: z
    .object({
      id: z.string().min(1),
      action_id: z.string().min(1),
      value: z.string().optional(),
      user: qaUserSchema,
      at: z.number(),
    })
    .optional(),
  /** Set when the platform delivers an event again (a redelivery), counting from 1. */
  redelivery: z.number().int().positive().optional(),
});
export type QaWireEvent = z.infer<typeof qaEventSchema>;

/** The error body of every failed call: `{ ok: false, error: { code, description, retry_after_ms? } }`. */
export const qaErrorBodySchema = z.object({
  ok: z.literal(false),
  error: z.object({
    code: z.string(),
    description: z.string(),
    retry_after_ms: z.number().nonnegative().optional(),
  }),
});
export type QaWireError = z.infer<typeof qaErrorBodySchema>["error"];

/** Body of `POST /api/v1/chats/:chat_id/messages`. */
export const qaPostBodySchema = z.object({
  text: z.string(),
  thread_id: z.string().optional(),
  reply_to_id: z.string().optional(),
  client_key: z.string().max(200).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** A file uploaded before (`POST /api/v1/files`); `text` is then its caption and may be empty. */
  file_id: z.string().min(1).optional(),
  buttons: z.array(qaButtonSchema).max(5).optional(),
});
export type QaPostBody = z.infer<typeof qaPostBodySchema>;

/** Body of `PATCH /api/v1/chats/:chat_id/messages/:message_id`. */
export const qaEditBodySchema = z.object({
  text: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Body of `POST /api/v1/chats/:chat_id/streams/:message_id/stop`: `text`, when given, is
 * **appended** before the stream closes (like Slack's `chat.stopStream` `markdown_text`).
 */
export const qaStreamStopBodySchema = z.object({ text: z.string().optional() });

/** Body of `POST /api/v1/chats/:chat_id/typing`. */
export const qaTypingBodySchema = z.object({
  typing: z.boolean(),
  thread_id: z.string().optional(),
});

/**
 * The metadata key carrying herald's origin on a message (the QA platform's counterpart of
 * Slack's `metadata.event_type`).
 */
export const QA_ORIGIN_METADATA_KEY = "herald_origin";

/** Body of `POST /api/v1/chats/:chat_id/ephemeral`: a message only `user_id` sees. */
export const qaEphemeralBodySchema = z.object({
  user_id: z.string().min(1),
  text: z.string().min(1),
  buttons: z.array(qaButtonSchema).max(5).optional(),
});

/** Body of `POST /api/v1/dms`: open (or find) the DM with a user. */
export const qaOpenDmBodySchema = z.object({ user_id: z.string().min(1) });

/** The QA platform's largest upload, in bytes (`413 file_too_large` above it). */
export const QA_MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
