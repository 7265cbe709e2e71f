/**
 * Inbound: the API's webhook events become herald messages, and the webhook receiver checks
 * `X-HttpChat-Signature` (HMAC-SHA256 of `<X-HttpChat-Timestamp>.<raw body>`, the timestamp
 * within {@link HTTPCHAT_SIGNATURE_WINDOW_S}) before anything is recorded.
 *
 * @module
 */
import {
  type ChannelReceiver,
  type ChannelReceiverSink,
  ignore,
  type MessageOrigin,
  type MessageReceiveAdapter,
  parseInbound,
  verifyHmacSha256,
  webhookReceiver,
  z,
} from "@herald/plugin-sdk/channel-message";
import { wireMessageSchema } from "./client.ts";

const eventSchema = z.object({ type: z.string(), message: wireMessageSchema });

/** The receive adapter; `botId` is the bot's own user id (its echoes are dropped by core). */
export function createReceive(channel: string, botId?: string): MessageReceiveAdapter {
  return {
    normalize(raw, ctx) {
      const { type, message: m } = parseInbound(eventSchema, raw, channel);
      if (type !== "message.created") return ignore("unsupported_event", type);
      const thread = m.thread_id ? { threadId: m.thread_id } : {};
      const kind = m.chat_type === "direct" ? "direct" : m.thread_id ? "thread" : "group";
      return {
        id: `${channel}:${m.id}`,
        channel,
        direction: "inbound",
        target: { kind, id: m.chat_id, ...thread },
        sender: { id: m.author.id, isBot: m.author.bot, displayName: m.author.name ?? m.author.id },
        body: { markdown: m.text },
        platformMessageId: m.id,
        threadAnchor: { threadId: m.thread_id ?? m.id },
        timestamp: m.created_at,
        ...(m.reply_to ? { relation: { kind: "reply", replyToId: m.reply_to } } : {}),
        ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
        raw,
      };
    },
    selfIds: () => (botId ? [botId] : []),
  };
}

/** Reads herald's origin from an event's `message.metadata.herald_origin` (only herald's own). */
export function decodeOrigin(raw: unknown): MessageOrigin | undefined {
  const origin = eventSchema.safeParse(raw).data?.message.metadata?.herald_origin;
  return origin?.source === "herald" ? origin : undefined;
}

/**
 * How far a signed delivery's `X-HttpChat-Timestamp` may be from now, in seconds: an older one
 * (a captured request replayed) is refused like a forged one.
 */
export const HTTPCHAT_SIGNATURE_WINDOW_S = 300;

/**
 * The webhook receiver: checks `X-HttpChat-Timestamp` (epoch seconds, within
 * {@link HTTPCHAT_SIGNATURE_WINDOW_S} of `clock`) and `X-HttpChat-Signature` (HMAC-SHA256 of
 * `<timestamp>.<raw body>`) first; either failing → 401, nothing recorded.
 *
 * @param clock - epoch ms. @defaultValue Date.now
 */
export function createHttpChatReceiver(
  secret: string,
  sink: ChannelReceiverSink,
  clock: () => number = Date.now,
): ChannelReceiver {
  return webhookReceiver({
    sink,
    // One log line per refused request (a wrong secret is otherwise silent).
    refusals: { logger: sink.logger, channel: "httpchat" },
    authenticate: (request, rawBody) => {
      const timestamp = request.headers.get("x-httpchat-timestamp") ?? "";
      if (!/^\d{1,12}$/.test(timestamp)) return false;
      if (Math.abs(clock() / 1_000 - Number(timestamp)) > HTTPCHAT_SIGNATURE_WINDOW_S) return false;
      return verifyHmacSha256({
        secret,
        signed: [timestamp, ".", rawBody],
        signature: request.headers.get("x-httpchat-signature"),
        prefix: "sha256=",
      });
    },
  });
}
