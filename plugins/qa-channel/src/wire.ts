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
});
export type QaWireMessage = z.infer<typeof qaMessageSchema>;

/** Event types of the bot event stream (`GET /api/v1/events`). */
export const qaEventTypeSchema = z.enum(["message.created", "message.edited", "message.deleted"]);

/** One event of the bot event stream; `seq` increases by one per event. */
export const qaEventSchema = z.object({
  seq: z.number().int().positive(),
  type: qaEventTypeSchema,
  message: qaMessageSchema,
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
