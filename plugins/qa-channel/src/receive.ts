/**
 * Inbound on the QA channel: QA events (`message.created`, `message.edited`) become herald
 * messages. The adapter states platform facts — bot author, room shape, mention, its own id —
 * and core decides (echo drop, dedupe, authorization).
 *
 * @module
 */
import {
  type MessageEventClass,
  type MessageReceiveAdapter,
  type MessageTarget,
  type NormalizeResult,
  parseInbound,
  z,
} from "@herald/plugin-sdk/channel-message";
import { type QaWireEvent, qaEventSchema } from "./wire.ts";

/** The channel id of the QA channel. */
export const QA_CHANNEL_ID = "qa";

/** Events that carry a message for the bot (`message.deleted` becomes a typed event). */
export const qaInboundEventSchema = qaEventSchema.extend({
  type: z.enum(["message.created", "message.edited"]),
});

/** Whether a stream event is a message (created or edited) rather than another event. */
export function isInboundEvent(event: QaWireEvent): boolean {
  return event.type === "message.created" || event.type === "message.edited";
}

function targetOf(m: QaWireEvent["message"]): MessageTarget {
  const kind = m.chat_type === "direct" ? "direct" : m.thread_id ? "thread" : "group";
  return {
    kind,
    id: m.chat_id,
    ...(m.thread_id !== undefined ? { threadId: m.thread_id } : {}),
    ...(kind === "thread" ? { parentId: m.chat_id } : {}),
  };
}

/**
 * The receive adapter.
 *
 * @param botId - this bot's user id (from its token): its own messages are dropped by core.
 */
export function createReceive(botId: string): MessageReceiveAdapter {
  return {
    normalize(raw, ctx): NormalizeResult {
      const type = (raw as { type?: unknown } | null)?.type;
      if (type === "message.deleted") {
        const event = parseInbound(qaEventSchema, raw, QA_CHANNEL_ID);
        return {
          kind: "event",
          type: "message_deleted",
          id: `deleted:${event.message.id}`,
          channel: QA_CHANNEL_ID,
          ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
          target: targetOf(event.message),
          platformMessageId: event.message.id,
          raw,
        };
      }
      const event = parseInbound(qaInboundEventSchema, raw, QA_CHANNEL_ID);
      const m = event.message;
      const target = targetOf(m);
      return {
        id: `qa:${m.id}${event.type === "message.edited" ? `:edit:${m.edited_at ?? event.seq}` : ""}`,
        channel: QA_CHANNEL_ID,
        direction: "inbound",
        target,
        sender: {
          id: m.author.id,
          isBot: m.author.is_bot,
          ...(m.author.name !== undefined ? { displayName: m.author.name } : {}),
        },
        body: { markdown: m.text },
        platformMessageId: m.id,
        // Threads are named by their root message, in every chat (DMs included).
        threadAnchor: { threadId: m.thread_id ?? m.id },
        timestamp: m.edited_at ?? m.created_at,
        mentions: { self: m.text.includes(`@${botId}`) },
        ...(m.reply_to_id !== undefined
          ? { relation: { kind: "reply", replyToId: m.reply_to_id } }
          : {}),
        ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
        raw,
      };
    },
    classify(message, raw): MessageEventClass {
      const type = (raw as { type?: string }).type;
      const eventType = type === "message.edited" ? "message_changed" : "message";
      return {
        eventType,
        eventTypes: [eventType],
        isBotAuthor: message.sender?.isBot === true,
        isRoomish: message.target.kind !== "direct",
        mentionsSelf: message.mentions?.self === true,
        isEdit: eventType === "message_changed",
        authorIds: message.sender ? [message.sender.id] : [],
      };
    },
    dedupeIdentity: (message) => message.id,
    selfIds: () => [botId],
  };
}
