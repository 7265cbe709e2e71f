/**
 * An inbound `ChannelMessage` from the few facts a platform event carries ([H27] item 1, one
 * copy): every plugin's `normalize` built the same id, direction, body, thread anchor and reply
 * relation by hand, with an `...(x ? { x } : {})` for each optional field.
 *
 * @module
 */
import type { ChannelMessage, MessageActor, MessageTarget } from "@herald/core";

/** What {@link inboundMessage} builds a message from; `undefined` optional fields are left out. */
export type InboundMessageFields = {
  /** The platform's id of the message (also the herald id's suffix: `<channel>:<id>`). */
  platformMessageId: string;
  /** Where it was written; `threadId: undefined` means the top level. */
  target: Omit<MessageTarget, "threadId"> & { threadId?: string | undefined };
  sender: MessageActor;
  /** The text as written (markdown). */
  text: string;
  /**
   * The thread a reply placed `thread` goes into (`threadAnchor.threadId`).
   * @defaultValue `target.threadId`, else the message's own id (a thread opened under it)
   */
  threadAnchorId?: string | undefined;
  /** The platform id of the message this one replies to, if any (`relation: reply`). */
  replyToId?: string | undefined;
  /** When it was written, epoch ms. */
  timestamp?: number | undefined;
  /** The platform event, kept for the handler. */
  raw?: unknown;
};

/**
 * Builds the inbound message `normalize` returns: id `<channel>:<platformMessageId>`, direction
 * `inbound`, body `{ markdown: text }`, a thread anchor, and a `reply` relation when
 * `replyToId` is given. Core fills in the account.
 *
 * @example
 * return inboundMessage("acme", {
 *   platformMessageId: m.id,
 *   target: { kind: "group", id: m.chat_id, threadId: m.thread_id },
 *   sender: { id: m.author.id, isBot: m.author.bot },
 *   text: m.text,
 *   replyToId: m.reply_to,
 * });
 */
export function inboundMessage(channel: string, fields: InboundMessageFields): ChannelMessage {
  const { platformMessageId: id, target, replyToId, timestamp } = fields;
  const { threadId, ...place } = target;
  return {
    id: `${channel}:${id}`,
    channel,
    direction: "inbound",
    target: threadId === undefined ? place : { ...place, threadId },
    sender: fields.sender,
    body: { markdown: fields.text },
    platformMessageId: id,
    threadAnchor: { threadId: fields.threadAnchorId ?? threadId ?? id },
    ...(replyToId === undefined ? {} : { relation: { kind: "reply", replyToId } }),
    ...(timestamp === undefined ? {} : { timestamp }),
    ...(fields.raw === undefined ? {} : { raw: fields.raw }),
  };
}
