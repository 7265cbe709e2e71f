/**
 * Payload validation for receive: the zod helper adapters call in `normalize`, and the check
 * core runs on every normalized message so an adapter bug becomes a typed error, not a crash
 * three steps later.
 *
 * @module
 */
import { type ZodType, z } from "zod";
import type { InboundEvent, InboundIgnore, InboundInteraction } from "../adapter/receive.ts";
import type { ChannelMessage } from "../message/message.ts";
import { ISSUE_ROOT_PATH, ReceiveValidationError, type ReceiveValidationIssue } from "./errors.ts";

/** Joins a zod issue path into `message.chat.id` form (array indices too: `entities.0.offset`). */
export function joinIssuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return ISSUE_ROOT_PATH;
  return path
    .map((p) => (typeof p === "symbol" ? (p.description ?? "symbol") : String(p)))
    .join(".");
}

/** Converts zod issues into herald's issue list (at most `limit`, first issue first). */
export function issuesFromZod(error: z.ZodError, limit = 10): ReceiveValidationIssue[] {
  return error.issues
    .slice(0, limit)
    .map((issue) => ({ path: joinIssuePath(issue.path), message: issue.message }));
}

/**
 * Parses a raw platform payload with a zod schema, for use in
 * {@link MessageReceiveAdapter.normalize}.
 *
 * @param schema - the platform payload schema (keep the platform's wire names).
 * @param raw - the payload as received.
 * @param channel - channel id, for the error message.
 * @returns the parsed payload.
 * @throws {@link ReceiveValidationError} naming the first failing field path, e.g.
 * `telegram payload invalid at message.chat.id: Invalid input: expected number, received string`.
 * @example
 * const update = parseInbound(telegramUpdateSchema, raw, "telegram");
 */
export function parseInbound<T>(schema: ZodType<T>, raw: unknown, channel: string): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new ReceiveValidationError(channel, issuesFromZod(result.error));
}

const inboundMessageSchema = z.object({
  id: z.string().min(1),
  channel: z.string().min(1),
  direction: z.literal("inbound"),
  target: z.object({
    kind: z.enum(["direct", "group", "channel", "thread"]),
    id: z.string().min(1),
  }),
  sender: z.object({ id: z.string().min(1) }).optional(),
});

/**
 * Checks the invariants core relies on in a normalized inbound message: non-empty `id`,
 * `channel` equal to the adapter's, `direction: "inbound"`, a target with kind and id.
 *
 * @throws {@link ReceiveValidationError} with a path inside the normalized message, prefixed
 * `normalized.` so it is not mistaken for a payload field.
 */
export function assertInboundMessage(message: unknown, channel: string): ChannelMessage {
  assertNormalized(inboundMessageSchema, message, channel);
  return message as ChannelMessage;
}

/** Validates a normalized value against `schema` and the adapter's `channel` (paths `normalized.…`). */
function assertNormalized(
  schema: z.ZodType<{ channel: string }>,
  value: unknown,
  channel: string,
): void {
  const result = schema.safeParse(value);
  const issues = result.success
    ? []
    : issuesFromZod(result.error).map((i) => ({ ...i, path: `normalized.${i.path}` }));
  if (result.success && result.data.channel !== channel) {
    issues.push({
      path: "normalized.channel",
      message: `expected "${channel}", received "${result.data.channel}"`,
    });
  }
  if (issues.length > 0) throw new ReceiveValidationError(channel, issues);
}

const inboundEventSchema = z.object({
  kind: z.literal("event"),
  type: z.enum([
    "member_joined",
    "member_left",
    "message_deleted",
    "message_edited",
    "reaction_added",
    "reaction_removed",
  ]),
  id: z.string().min(1),
  channel: z.string().min(1),
  target: z.object({
    kind: z.enum(["direct", "group", "channel", "thread"]),
    id: z.string().min(1),
  }),
});

const actorSchema = z.object({ id: z.string().min(1) });
const interactionSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("reaction"),
    id: z.string().min(1),
    channel: z.string().min(1),
    target: z.object({
      kind: z.enum(["direct", "group", "channel", "thread"]),
      id: z.string().min(1),
    }),
    sender: actorSchema,
    messageId: z.string().min(1),
    emoji: z.string().min(1),
    removed: z.boolean(),
    timestamp: z.number(),
  }),
  z.object({
    kind: z.literal("action"),
    id: z.string().min(1),
    channel: z.string().min(1),
    target: z.object({
      kind: z.enum(["direct", "group", "channel", "thread"]),
      id: z.string().min(1),
    }),
    sender: actorSchema,
    actionId: z.string().min(1),
    timestamp: z.number(),
  }),
]);

/**
 * Checks the invariants core relies on in a reaction or button click ([H23]): a non-empty `id`
 * (its dedupe identity), `channel` equal to the adapter's, target, sender, and the reacted-to
 * message and emoji (reaction) or the action id (click).
 *
 * @throws {@link ReceiveValidationError} with a path prefixed `normalized.`.
 */
export function assertInboundInteraction(item: unknown, channel: string): InboundInteraction {
  assertNormalized(interactionSchema, item, channel);
  return item as InboundInteraction;
}

/**
 * Checks the invariants core relies on in a typed inbound event: a known `type`, a non-empty
 * `id` (its dedupe identity), `channel` equal to the adapter's, a target with kind and id.
 *
 * @throws {@link ReceiveValidationError} with a path prefixed `normalized.`.
 */
export function assertInboundEvent(event: unknown, channel: string): InboundEvent {
  assertNormalized(inboundEventSchema, event, channel);
  return event as InboundEvent;
}

/**
 * `normalize`'s answer for an event that is deliberately not processed: logged, counted
 * (outcome `ignored` with `reason`) and acked; never dead-lettered.
 *
 * @param reason - a short fixed label, e.g. `"service_message"`, `"unsupported_update"`.
 * @param detail - free text for the log line.
 * @example
 * if (!update.message?.text) return ignore("service_message", "pinned_message");
 */
export function ignore(reason: string, detail?: string): InboundIgnore {
  return detail === undefined ? { kind: "ignore", reason } : { kind: "ignore", reason, detail };
}
