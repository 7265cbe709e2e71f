/**
 * Event classes: core's default classification, merging of several event types of one message,
 * and the self-author check with ids in canonical form.
 *
 * @module
 */
import type { MessageEventClass, MessageReceiveAdapter } from "../adapter/receive.ts";
import type { ChannelMessage } from "../message/message.ts";

/** The class core derives when the adapter has no `classify`. */
export function defaultEventClass(message: ChannelMessage): MessageEventClass {
  return {
    eventType: "message",
    eventTypes: ["message"],
    isBotAuthor: message.sender?.isBot === true,
    isRoomish: message.target.kind !== "direct",
    mentionsSelf: message.mentions?.self === true,
    ...(message.sender ? { authorIds: [message.sender.id] } : {}),
  };
}

/** Fills optional fields so the rest of core can rely on them. */
export function completeEventClass(
  event: MessageEventClass,
  message: ChannelMessage,
): MessageEventClass {
  const eventTypes = event.eventTypes.length > 0 ? event.eventTypes : [event.eventType];
  const authorIds = event.authorIds ?? (message.sender ? [message.sender.id] : []);
  return { ...event, eventTypes, authorIds };
}

/**
 * Merges the class of another event type of the same platform message into `into` (in place,
 * so a handler already holding it sees the union): booleans OR-ed, event types and author ids
 * united in arrival order. The first event keeps `eventType`.
 */
export function mergeEventClass(into: MessageEventClass, other: MessageEventClass): void {
  const target = into as { -readonly [K in keyof MessageEventClass]: MessageEventClass[K] };
  target.eventTypes = unite(into.eventTypes, other.eventTypes);
  target.authorIds = unite(into.authorIds ?? [], other.authorIds ?? []);
  target.isBotAuthor = into.isBotAuthor || other.isBotAuthor;
  target.isRoomish = into.isRoomish || other.isRoomish;
  target.mentionsSelf = into.mentionsSelf || other.mentionsSelf;
  if (other.isEdit) target.isEdit = true;
}

function unite(a: readonly string[], b: readonly string[]): string[] {
  const out = [...a];
  for (const x of b) if (!out.includes(x)) out.push(x);
  return out;
}

/**
 * An id in canonical form: trimmed, and lower-cased when the platform's ids compare
 * case-insensitively.
 */
export function canonicalId(id: string, caseInsensitive: boolean): string {
  const trimmed = id.trim();
  return caseInsensitive ? trimmed.toLowerCase() : trimmed;
}

/**
 * True when the message was authored by this bot: the adapter flagged `sender.isSelf`, or one
 * of the event's author ids equals one of the adapter's self ids in canonical form.
 */
export function isSelfAuthored(
  message: ChannelMessage,
  event: MessageEventClass,
  adapter: MessageReceiveAdapter,
): boolean {
  if (message.sender?.isSelf === true) return true;
  const selfIds = adapter.selfIds?.(message.accountId) ?? [];
  if (selfIds.length === 0) return false;
  const ci = adapter.idsCaseInsensitive === true;
  const mine = new Set(selfIds.map((id) => canonicalId(id, ci)));
  return (event.authorIds ?? []).some((id) => mine.has(canonicalId(id, ci)));
}
