/**
 * herald origin ⇄ QA message metadata. The QA platform carries client metadata on messages (like
 * Slack's `metadata`), so origins are native: a tagged gateway-failure message posted by another
 * herald bot is recognised from the event itself, without the outbound registry.
 *
 * @module
 */
import {
  heraldOriginOf,
  type MessageOrigin,
  type MessageOriginAdapter,
  z,
} from "@herald/plugin-sdk/channel-message";
import { QA_ORIGIN_METADATA_KEY } from "./wire.ts";

const eventWithMetadata = z.object({
  message: z.object({ metadata: z.record(z.string(), z.unknown()).optional() }),
});

/** The metadata to attach for an origin (only herald's own origins are encoded). */
export function encodeOrigin(
  origin: MessageOrigin | undefined,
): Record<string, unknown> | undefined {
  if (origin?.source !== "herald") return undefined;
  return { [QA_ORIGIN_METADATA_KEY]: origin };
}

/** Reads a herald origin from a QA event's message metadata; anything else is not ours. */
export function decodeOrigin(raw: unknown): MessageOrigin | undefined {
  const event = eventWithMetadata.safeParse(raw);
  if (!event.success) return undefined;
  return heraldOriginOf(event.data.message.metadata?.[QA_ORIGIN_METADATA_KEY]);
}

/** The origin adapter of the QA channel. */
export const qaOrigin: MessageOriginAdapter<Record<string, unknown>> = {
  encode: encodeOrigin,
  decode: decodeOrigin,
};
