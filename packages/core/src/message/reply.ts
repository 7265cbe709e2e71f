/**
 * Where a reply to an inbound message goes: its target and `reply` relation, for a
 * {@link ReplyPlacement} (DESIGN §7–8). One copy for every producer of replies — `turn.reply`,
 * streamed bot replies, the activity log — so they agree on what "in the thread" means.
 *
 * @module
 */
import type { ChannelMessage, MessageRelation, MessageTarget, ReplyPlacement } from "./message.ts";

/** The address of a reply: where it goes and how it relates to the inbound message. */
export type ReplyAddress = {
  target: MessageTarget;
  relation: Extract<MessageRelation, { kind: "reply" }>;
};

/**
 * The target and relation of a reply to `inbound`.
 *
 * - `inline`, `quote` and no placement: the inbound's own target — the top level of its chat,
 *   or the thread the user wrote in;
 * - `thread`, `broadcast`: the thread under the inbound (`inbound.threadAnchor`); without an
 *   anchor (no thread can live there, e.g. a DM on Google Chat) the reply falls back to
 *   `inline`.
 *
 * `replyToId` is the inbound's platform id; `threadId` is the thread the reply is in, if any.
 * Pure.
 *
 * @example
 * // Google Chat: the log goes into spaces/S/threads/T, never into a message name.
 * placeReply(inbound, "thread").target.threadId // → inbound.threadAnchor.threadId
 * placeReply(inbound).target                    // → inbound.target (top level stays top level)
 */
export function placeReply(inbound: ChannelMessage, placement?: ReplyPlacement): ReplyAddress {
  const anchor = inbound.threadAnchor?.threadId;
  const wantsThread = placement === "thread" || placement === "broadcast";
  const threaded = wantsThread && anchor !== undefined;
  const effective: ReplyPlacement | undefined = wantsThread && !threaded ? "inline" : placement;
  const target: MessageTarget = threaded ? { ...inbound.target, threadId: anchor } : inbound.target;
  const threadId = target.threadId;
  return {
    target,
    relation: {
      kind: "reply",
      inboundMessageId: inbound.id,
      ...(inbound.platformMessageId === undefined ? {} : { replyToId: inbound.platformMessageId }),
      ...(threadId === undefined ? {} : { threadId }),
      ...(effective === undefined ? {} : { placement: effective }),
    },
  };
}
