/**
 * Idempotency keys (DESIGN §3 "Keys"). An intent's key names one operation: default keys are
 * namespaced by operation (`send` / `edit` / `delete`; live sessions use `live`) and by channel +
 * account, and every platform call of an intent gets its own unit key, stable across retries of
 * that call and distinct from every other call. Adapters shorten unit keys to their platform's
 * alphabet and length with the SDK's `platformKey`.
 *
 * Formats (`<account>` is empty for a channel without accounts):
 * - send: `send:<channel>:<account>:<message id>`
 * - edit: `edit:<channel>:<account>:<target>:<content hash>` — the same edit again is the same
 *   operation; a different text is another one
 * - delete: `delete:<channel>:<account>:<target>`
 * - unit keys: `<intent key>#<unit index>` for sent or edited units and for each deleted part;
 *   `<intent key>#leftover.<part index>` for parts an edit no longer needs
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { IntentOperation } from "./intent.ts";
import type { ChannelMessage } from "./message.ts";
import type { MessageReceipt } from "./receipt.ts";

/** The operations a default key is namespaced by. */
export type KeyedOperation = IntentOperation["kind"] | "live";

/** `<op>:<channel>:<account>:`, the namespace of a default key. */
export function keyNamespace(
  operation: KeyedOperation,
  message: Pick<ChannelMessage, "channel" | "accountId">,
): string {
  return `${operation}:${message.channel}:${message.accountId ?? ""}:`;
}

/** The platform message a receipt names (its primary id, else every id). */
function targetOf(receipt: MessageReceipt): string {
  return receipt.primaryPlatformMessageId ?? receipt.platformMessageIds.join(",");
}

/** A short hash of what a message shows (body and attachments). */
export function contentHash(message: Pick<ChannelMessage, "body" | "attachments">): string {
  return createHash("sha256")
    .update(JSON.stringify([message.body ?? null, message.attachments ?? []]))
    .digest("hex")
    .slice(0, 16);
}

/**
 * The default idempotency key of an operation on `message` (see the module doc for formats).
 *
 * @example
 * defaultIdempotencyKey({ kind: "send" }, message) // "send:telegram:bot-1:m-42"
 */
export function defaultIdempotencyKey(operation: IntentOperation, message: ChannelMessage): string {
  const ns = keyNamespace(operation.kind, message);
  if (operation.kind === "send") return `${ns}${message.id}`;
  if (operation.kind === "delete") return `${ns}${targetOf(operation.receipt)}`;
  return `${ns}${targetOf(operation.receipt)}:${contentHash(message)}`;
}

/**
 * The key of one platform call of an intent: unique per platform operation, stable across
 * retries of that operation. `part` names calls that are not units of the batch.
 */
export function unitIdempotencyKey(intentKey: string, index: number, part?: "leftover"): string {
  return part ? `${intentKey}#${part}.${index}` : `${intentKey}#${index}`;
}
