/**
 * herald origin ⇄ Matrix event content. Matrix keeps unknown namespaced content keys byte for
 * byte (PLATFORMS.md §6), so herald's origin travels natively in `dev.herald.origin`: a tagged
 * gateway-failure message posted by another herald bot is recognised from the event itself.
 *
 * Every event this plugin sends also carries `dev.herald.sent: { v: 1 }`, which — with the
 * sender's user id — lets the receiver drop its own echoes (an edit's replacement event, a
 * redaction) even when they arrive through another device's sync.
 *
 * @module
 */
import {
  heraldOriginOf,
  type MessageOrigin,
  type MessageOriginAdapter,
  z,
} from "@herald/plugin-sdk/channel-message";

/** The content key holding a herald origin (namespaced, Java-package style). */
export const ORIGIN_CONTENT_KEY = "dev.herald.origin";
/** The content key marking every event herald sent (`{ v: 1 }`). */
export const SENT_CONTENT_KEY = "dev.herald.sent";

const eventWithContent = z.object({ content: z.record(z.string(), z.unknown()) });

/** The event of a raw inbound: the receiver's `{ room_id, event }`, or a bare event. */
const eventOf = (raw: unknown): unknown =>
  raw && typeof raw === "object" && "event" in raw ? (raw as { event: unknown }).event : raw;

/** The content keys to add for an origin (only herald's own origins are encoded). */
export function encodeOrigin(
  origin: MessageOrigin | undefined,
): Record<string, unknown> | undefined {
  if (origin?.source !== "herald") return undefined;
  return { [ORIGIN_CONTENT_KEY]: origin };
}

/** Reads a herald origin from a Matrix event's content; anything else is not ours. */
export function decodeOrigin(raw: unknown): MessageOrigin | undefined {
  const event = eventWithContent.safeParse(eventOf(raw));
  if (!event.success) return undefined;
  return heraldOriginOf(event.data.content[ORIGIN_CONTENT_KEY]);
}

/** True when the event's content carries herald's sent marker. */
export function isHeraldSent(raw: unknown): boolean {
  const event = eventWithContent.safeParse(eventOf(raw));
  return event.success && typeof event.data.content[SENT_CONTENT_KEY] === "object";
}

/** The origin adapter of the Matrix channel. */
export const matrixOrigin: MessageOriginAdapter<Record<string, unknown>> = {
  encode: encodeOrigin,
  decode: decodeOrigin,
};
