/**
 * Reading a herald origin back from platform metadata ([H27] item 1, one copy): the metadata
 * of an inbound message is untrusted input — another bot, or a person with an API client, can
 * write anything there — so it is validated against the one shape herald writes before core's
 * echo drop believes it (seed `message-lifecycle.md`, "Origin").
 *
 * @module
 */
import type { MessageOrigin } from "@herald/core";
import { z } from "zod";

/**
 * The origin herald writes on its own operational output (`gatewayFailureOrigin`): source
 * `herald`, schema version 1, a gateway-failure code, echo policy `drop_bot_room_echo`.
 */
export const heraldOriginSchema = z.object({
  source: z.literal("herald"),
  schemaVersion: z.literal(1),
  kind: z.literal("gateway_failure"),
  code: z.enum(["agent_failed_before_reply", "missing_api_key", "model_login_expired"]),
  echoPolicy: z.literal("drop_bot_room_echo"),
});

/**
 * The herald origin in `value` (what `origin.decode` read from the platform's metadata), or
 * undefined for anything else — absent, another source, an unknown version, a malformed tag.
 * Never throws: a message with foreign metadata is still a message.
 *
 * @example
 * origin: { decode: (raw) => heraldOriginOf((raw as Event).message?.metadata?.herald_origin) }
 */
export function heraldOriginOf(value: unknown): MessageOrigin | undefined {
  const parsed = heraldOriginSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
