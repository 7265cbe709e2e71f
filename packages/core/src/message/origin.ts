/**
 * Message origin: who produced a message and how herald treats echoes of it
 * (seed `message-lifecycle.md`, "Origin").
 *
 * @module
 */

/** Codes of gateway-failure output that humans see but bots must not answer. */
export type GatewayFailureCode =
  | "agent_failed_before_reply"
  | "missing_api_key"
  | "model_login_expired";

/**
 * Origin metadata. `source: "herald"` marks herald's own operational output; channels encode
 * it into native metadata (Slack `metadata`, Matrix event content) or rely on the outbound
 * receipt registry.
 */
export type MessageOrigin =
  | {
      source: "herald";
      schemaVersion: 1;
      kind: "gateway_failure";
      code: GatewayFailureCode;
      echoPolicy: "drop_bot_room_echo";
    }
  | { source: "user" | "external_bot" | "platform" | "unknown" };

/** The herald-originated variant of {@link MessageOrigin}. */
export type HeraldOrigin = Extract<MessageOrigin, { source: "herald" }>;

/**
 * Builds the origin for a visible gateway-failure message ("Agent failed before reply", …).
 *
 * @param code - which failure the message reports.
 * @returns an origin tagged `drop_bot_room_echo`, so bot-authored room echoes are dropped.
 * @example
 * await runtime.send({ ...message, origin: gatewayFailureOrigin("missing_api_key") });
 */
export function gatewayFailureOrigin(code: GatewayFailureCode): HeraldOrigin {
  return {
    source: "herald",
    schemaVersion: 1,
    kind: "gateway_failure",
    code,
    echoPolicy: "drop_bot_room_echo",
  };
}

/**
 * The shared echo predicate (seed, "Receive context"): true when an inbound message is a
 * bot-authored echo, in a room, of herald's own tagged gateway-failure output. The drop is
 * tag-based, never text-based: the same text without the tag follows normal `allowBots` rules.
 *
 * @param params.origin - origin decoded by the channel (or the outbound registry).
 * @param params.isBotAuthor - the platform marks the author as a bot.
 * @param params.isRoomish - the message is in a group, channel or thread (not a 1:1 DM).
 */
export function shouldDropHeraldEcho(params: {
  origin?: MessageOrigin | undefined;
  isBotAuthor: boolean;
  isRoomish: boolean;
}): boolean {
  return (
    params.isBotAuthor &&
    params.isRoomish &&
    params.origin?.source === "herald" &&
    params.origin.kind === "gateway_failure" &&
    params.origin.echoPolicy === "drop_bot_room_echo"
  );
}
