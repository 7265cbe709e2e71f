/**
 * herald's marks on Slack messages, in Slack's message `metadata` (PLATFORMS.md §6): every
 * message herald posts carries `{ event_type, event_payload: { v, i, u, code? } }` — `i` the
 * intent's idempotency key hashed with the SDK's `platformKey` (22 base62 characters, never the
 * key itself), `u` the unit's index — which is what reconciliation looks for in history (there
 * is no idempotency key on `chat.postMessage`), and the herald origin of gateway-failure output.
 *
 * The origin sits in `event_type` (`herald_gateway_failure`), because message events strip
 * `event_payload` unless the app subscribes to the type (python-slack-sdk#1501): the tag
 * survives, so a tagged echo is dropped even when the payload is gone (seed "Origin").
 *
 * @module
 */
import {
  heraldOriginSchema,
  type MessageOrigin,
  type MessageOriginAdapter,
  platformKey,
} from "@herald/plugin-sdk/channel-message";

/** `event_type` of herald's ordinary messages. */
export const HERALD_EVENT_TYPE = "herald_message";
/** `event_type` of herald's gateway-failure output (origin `source: "herald"`). */
export const GATEWAY_FAILURE_EVENT_TYPE = "herald_gateway_failure";

/** Slack message metadata as on the wire. */
export type SlackMetadata = {
  event_type: string;
  event_payload?: Record<string, string | number | boolean>;
};

/** Which herald unit a message is. */
export type UnitMark = { intent: string; unit: number };

/**
 * The hash of an intent's idempotency key as it is stored on Slack (account-scoped, so two
 * bots' marks never match).
 */
export function intentMark(accountId: string | undefined, idempotencyKey: string): string {
  return platformKey(`${accountId ?? ""}|${idempotencyKey}`, { maxLength: 22 });
}

/** The metadata of one unit herald posts. */
export function unitMetadata(options: {
  accountId: string | undefined;
  idempotencyKey: string;
  unitIndex: number;
  origin?: MessageOrigin | undefined;
}): SlackMetadata {
  const failure = options.origin?.source === "herald" ? options.origin : undefined;
  return {
    event_type: failure ? GATEWAY_FAILURE_EVENT_TYPE : HERALD_EVENT_TYPE,
    event_payload: {
      v: 1,
      i: intentMark(options.accountId, options.idempotencyKey),
      u: options.unitIndex,
      ...(failure ? { code: failure.code } : {}),
    },
  };
}

function metadataOf(raw: unknown): SlackMetadata | undefined {
  const m = (raw as { metadata?: unknown } | null)?.metadata as SlackMetadata | undefined;
  return m && typeof m === "object" && typeof m.event_type === "string" ? m : undefined;
}

/** The unit mark of a message (from `conversations.history` with `include_all_metadata`). */
export function unitMarkOf(message: unknown): UnitMark | undefined {
  const m = metadataOf(message);
  if (m?.event_type !== HERALD_EVENT_TYPE && m?.event_type !== GATEWAY_FAILURE_EVENT_TYPE) {
    return undefined;
  }
  const p: Record<string, unknown> = m.event_payload ?? {};
  return typeof p.i === "string" && typeof p.u === "number"
    ? { intent: p.i, unit: p.u }
    : undefined;
}

/**
 * The herald origin of a Slack message (an event's `message`, or the event itself), if tagged.
 * A stripped payload still decodes (the tag is the `event_type`); the code then defaults to
 * `agent_failed_before_reply`, which only affects how the echo is logged.
 */
export function decodeOrigin(raw: unknown): MessageOrigin | undefined {
  const container = raw as { event?: unknown; message?: unknown } | null;
  const event = (container?.event ?? raw) as { message?: unknown } | null;
  const m = metadataOf(event) ?? metadataOf(event?.message);
  if (m?.event_type !== GATEWAY_FAILURE_EVENT_TYPE) return undefined;
  const code = heraldOriginSchema.shape.code.safeParse(m.event_payload?.code);
  return {
    source: "herald",
    schemaVersion: 1,
    kind: "gateway_failure",
    code: code.success ? code.data : "agent_failed_before_reply",
    echoPolicy: "drop_bot_room_echo",
  };
}

/** The origin adapter: what core's receive path asks for an inbound event. */
export const slackOrigin: MessageOriginAdapter<SlackMetadata> = {
  decode: decodeOrigin,
};
