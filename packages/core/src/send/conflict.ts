/**
 * Reusing an idempotency key is only a retry when it asks for the same thing (DESIGN §3 "Keys"):
 * the same operation on the same platform message(s), from the same channel and account, with
 * the same content. Anything else is a conflict, never "return the first receipt".
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { IdempotencyConflictError } from "../delivery/errors.ts";
import type { DurableSendIntent, IntentOperation } from "../message/intent.ts";
import type { ChannelMessage } from "../message/message.ts";

/** Plain JSON, as the store gives it back (no `undefined`-valued keys). */
const plain = (value: unknown): unknown =>
  value === undefined ? undefined : JSON.parse(JSON.stringify(value));

/** What a request asks for, field by field (the message id is not part of it). */
function requestOf(
  message: ChannelMessage,
  operation: IntentOperation,
  match: "request" | "slot",
): Array<[string, unknown]> {
  const common: Array<[string, unknown]> = [
    ["operation", operation.kind],
    [
      "target",
      operation.kind === "send"
        ? undefined
        : operation.kind === "reaction"
          ? [operation.messageId, operation.emoji, operation.remove === true]
          : operation.receipt.platformMessageIds,
    ],
    ["channel", message.channel],
    ["accountId", message.accountId ?? ""],
  ];
  // A delete asks for nothing but its target: the message in its conversation (and thread),
  // since platform message ids may be per chat (Telegram).
  if (operation.kind === "delete") {
    const { id, threadId } = message.target;
    return [...common, ["message.target", { id, threadId }]];
  }
  const placement: Array<[string, unknown]> = [
    ["message.target", message.target],
    ["message.relation", message.relation],
  ];
  // A slot key (`keyMatch: "slot"`) names where the message goes, not what it says.
  if (match === "slot") return [...common, ...placement];
  return [
    ...common,
    ...placement,
    ["message.body", message.body],
    ["message.attachments", message.attachments ?? []],
  ];
}

/**
 * Checks that a request reusing `existing`'s key asks for what `existing` does (`match`:
 * `"request"` compares the content too, `"slot"` only operation, channel, account and placement).
 *
 * @throws IdempotencyConflictError naming the first field that differs.
 */
export function assertSameRequest(
  existing: DurableSendIntent,
  message: ChannelMessage,
  operation: IntentOperation,
  match: "request" | "slot" = "request",
): void {
  conflictAt(
    existing,
    requestOf(existing.message, existing.operation, match),
    requestOf(message, operation, match),
  );
}

/**
 * Checks that a live session reusing `existing`'s key (its final, or the live intent of an
 * earlier run) is for the same place: channel, account, conversation and relation. Content is
 * not compared — a live key names a slot, like `keyMatch: "slot"`: a session opened again after
 * a crash gets the final already decided.
 *
 * @throws IdempotencyConflictError naming the first field that differs.
 */
export function assertSamePlace(existing: DurableSendIntent, message: ChannelMessage): void {
  const placeOf = (m: ChannelMessage): Array<[string, unknown]> => [
    ["channel", m.channel],
    ["accountId", m.accountId ?? ""],
    ["message.target", m.target],
    ["message.relation", m.relation],
  ];
  conflictAt(existing, placeOf(existing.message), placeOf(message));
}

function conflictAt(
  existing: DurableSendIntent,
  before: Array<[string, unknown]>,
  now: Array<[string, unknown]>,
): void {
  for (const [i, [field, value]] of now.entries()) {
    const old = before[i]?.[1];
    if (isDeepStrictEqual(plain(old), plain(value))) continue;
    const show = (v: unknown) => JSON.stringify(v ?? null).slice(0, 80);
    throw new IdempotencyConflictError(
      existing.idempotencyKey,
      existing.id,
      field,
      `${show(old)} before, ${show(value)} now`,
    );
  }
}
