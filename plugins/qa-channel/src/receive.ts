/**
 * Inbound on the QA channel: QA events (`message.created`, `message.edited`) become herald
 * messages. The adapter states platform facts — bot author, room shape, mention, its own id —
 * and core decides (echo drop, dedupe, authorization).
 *
 * @module
 */
import {
  type ChannelMessage,
  type MessageActor,
  type MessageAttachment,
  type MessageEventClass,
  type MessageReceiveAdapter,
  type MessageTarget,
  type NormalizeResult,
  parseInbound,
  z,
} from "@herald/plugin-sdk/channel-message";
import { type QaWireEvent, type QaWireMessage, qaEventSchema } from "./wire.ts";

/** The channel id of the QA channel. */
export const QA_CHANNEL_ID = "qa";

/** Events that carry a message for the bot (`message.deleted` becomes a typed event). */
export const qaInboundEventSchema = qaEventSchema.extend({
  type: z.enum(["message.created", "message.edited"]),
});

/** A reaction event ([H23]): `reaction` is required. */
const qaReactionEventSchema = qaEventSchema.extend({
  type: z.enum(["reaction.added", "reaction.removed"]),
  reaction: z.object({
    emoji: z.string().min(1),
    user: z.object({ id: z.string().min(1), name: z.string().optional(), is_bot: z.boolean() }),
    at: z.number(),
  }),
});

/** A click event ([H23]): `action` is required. */
const qaActionEventSchema = qaEventSchema.extend({
  type: z.literal("action.clicked"),
  action: z.object({
    id: z.string().min(1),
    action_id: z.string().min(1),
    value: z.string().optional(),
    user: z.object({ id: z.string().min(1), name: z.string().optional(), is_bot: z.boolean() }),
    at: z.number(),
  }),
});

function actorOf(u: { id: string; name?: string | undefined; is_bot: boolean }): MessageActor {
  return { id: u.id, isBot: u.is_bot, ...(u.name !== undefined ? { displayName: u.name } : {}) };
}

/**
 * A QA wire message as a herald message (inbound events and history). Files become
 * attachments with their platform file id, name, type and size.
 */
export function messageOf(
  m: QaWireMessage,
  botId: string,
  options: { accountId?: string | undefined; id?: string; raw?: unknown } = {},
): ChannelMessage {
  const target = targetOf(m);
  const attachments: MessageAttachment[] = (m.files ?? []).map((f) => ({
    kind: f.mime_type.startsWith("image/") ? "image" : "file",
    platformFileId: f.id,
    name: f.name,
    mimeType: f.mime_type,
    sizeBytes: f.size,
  }));
  return {
    id: options.id ?? `qa:${m.id}`,
    channel: QA_CHANNEL_ID,
    direction: m.author.id === botId ? "outbound" : "inbound",
    target,
    sender: actorOf(m.author),
    body: { markdown: m.text },
    ...(attachments.length ? { attachments } : {}),
    platformMessageId: m.id,
    // Threads are named by their root message, in every chat (DMs included).
    threadAnchor: { threadId: m.thread_id ?? m.id },
    timestamp: m.edited_at ?? m.created_at,
    mentions: { self: m.text.includes(`@${botId}`) },
    ...(m.reply_to_id !== undefined
      ? { relation: { kind: "reply", replyToId: m.reply_to_id } }
      : {}),
    ...(options.accountId !== undefined ? { accountId: options.accountId } : {}),
    ...(options.raw !== undefined ? { raw: options.raw } : {}),
  };
}

/** Whether a stream event is a message (created or edited) rather than another event. */
export function isInboundEvent(event: QaWireEvent): boolean {
  return event.type === "message.created" || event.type === "message.edited";
}

export function targetOf(m: QaWireEvent["message"]): MessageTarget {
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
      if (type === "reaction.added" || type === "reaction.removed") {
        const event = parseInbound(qaReactionEventSchema, raw, QA_CHANNEL_ID);
        const removed = event.type === "reaction.removed";
        const r = event.reaction;
        return {
          kind: "reaction",
          // One identity per change: the same on every redelivery of this event.
          id: `${event.message.id}:${r.user.id}:${r.emoji}:${removed ? "removed" : "added"}:${r.at}`,
          channel: QA_CHANNEL_ID,
          ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
          target: targetOf(event.message),
          sender: actorOf(r.user),
          messageId: event.message.id,
          emoji: r.emoji,
          removed,
          timestamp: r.at,
          raw,
        };
      }
      if (type === "action.clicked") {
        const event = parseInbound(qaActionEventSchema, raw, QA_CHANNEL_ID);
        const a = event.action;
        return {
          kind: "action",
          id: a.id,
          channel: QA_CHANNEL_ID,
          ...(ctx.accountId !== undefined ? { accountId: ctx.accountId } : {}),
          target: targetOf(event.message),
          sender: actorOf(a.user),
          actionId: a.action_id,
          ...(a.value !== undefined ? { value: a.value } : {}),
          messageId: event.message.id,
          timestamp: a.at,
          // The QA platform needs no ack of a click beyond reading the event.
          ack: "stream",
          raw,
        };
      }
      const event = parseInbound(qaInboundEventSchema, raw, QA_CHANNEL_ID);
      const m = event.message;
      return {
        ...messageOf(m, botId, {
          accountId: ctx.accountId,
          id: `qa:${m.id}${event.type === "message.edited" ? `:edit:${m.edited_at ?? event.seq}` : ""}`,
          raw,
        }),
        direction: "inbound",
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
