/**
 * Inbound: the API's webhook events become herald messages, and the webhook receiver checks
 * `X-HttpChat-Signature` (HMAC-SHA256 of `<X-HttpChat-Timestamp>.<raw body>`, the timestamp
 * within 5 minutes) before anything is recorded.
 *
 * @module
 */
import * as herald from "@herald/plugin-sdk/channel-message";
import { HTTPCHAT, wireMessageSchema } from "./client.ts";

const eventSchema = herald.z.object({ type: herald.z.string(), message: wireMessageSchema });

/** The receive adapter; `botId` is the bot's own user id (its echoes are dropped by core). */
export const createReceive = (botId?: string): herald.MessageReceiveAdapter => ({
  normalize(raw) {
    const { type, message: m } = herald.parseInbound(eventSchema, raw, HTTPCHAT);
    if (type !== "message.created") return herald.ignore("unsupported_event", type);
    const kind = m.chat_type === "direct" ? "direct" : m.thread_id ? "thread" : "group";
    return herald.inboundMessage(HTTPCHAT, {
      platformMessageId: m.id,
      target: { kind, id: m.chat_id, threadId: m.thread_id },
      sender: { id: m.author.id, isBot: m.author.bot, displayName: m.author.name ?? m.author.id },
      text: m.text,
      replyToId: m.reply_to,
      timestamp: m.created_at,
      raw,
    });
  },
  selfIds: () => (botId ? [botId] : []),
});

/** Reads herald's origin from an event's `message.metadata.herald_origin` (only herald's own). */
export const decodeOrigin = (raw: unknown) =>
  herald.heraldOriginOf(eventSchema.safeParse(raw).data?.message.metadata?.herald_origin);

/**
 * The webhook receiver: checks `X-HttpChat-Timestamp` (epoch seconds, within 5 minutes of now:
 * a captured delivery replayed later is refused) and `X-HttpChat-Signature` (HMAC-SHA256 of
 * `<timestamp>.<raw body>`) first; either failing → 401 and one log line, nothing recorded.
 */
export const createHttpChatReceiver = (secret: string, sink: herald.ChannelReceiverSink) =>
  herald.webhookReceiver({
    sink,
    refusals: { logger: sink.logger, channel: HTTPCHAT },
    authenticate: (request, rawBody) =>
      herald.verifyTimestampedHmac({
        secret,
        timestamp: request.headers.get("x-httpchat-timestamp"),
        signature: request.headers.get("x-httpchat-signature"),
        signed: (timestamp) => [timestamp, ".", rawBody],
        prefix: "sha256=",
      }),
  });
