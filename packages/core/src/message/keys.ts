/**
 * Idempotency keys (DESIGN §3 "Keys"). An intent's key names one operation: default keys are
 * namespaced by operation (`send` / `edit` / `delete`; live sessions use `live`) and by channel +
 * account, and every platform call of an intent gets its own unit key, stable across retries of
 * that call and distinct from every other call. Adapters shorten unit keys to their platform's
 * alphabet and length with the SDK's `platformKey`.
 *
 * Formats (`<account>` and `<thread>` are empty when there is none; `<where>` is
 * `<conversation>:<thread>:<platform message id>`, each part URL-encoded, so message 1 of one
 * chat and message 1 of another — per-chat ids, as on Telegram — never share a key):
 * - send: `send:<channel>:<account>:<message id>`
 * - edit: `edit:<channel>:<account>:<where>:<n>` — the `n`-th edit of that message. The send
 *   runtime reuses the latest edit's key only when it asks for the same content (a retry), else
 *   takes the next `n`: an edit back to an earlier text (A → B → A) is a new edit, never the old
 *   receipt. A send without durability uses `direct.<uuid>` for `n`.
 * - delete: `delete:<channel>:<account>:<where>`
 * - live session (the final's key): `live:<channel>:<account>:<message id>`; its live intent
 *   `<session key>:live` (`:live#<run>` for a later run)
 * - a turn's `n`-th reply to an inbound message: `reply:<channel>:<account>:<inbound id>:<n>`;
 *   the `n`-th streamed reply (a live session key): `stream:<channel>:<account>:<inbound id>:<n>`
 * - unit keys: `<intent key>#<unit index>` for sent or edited units and for each deleted part;
 *   `<intent key>#leftover.<part index>` for parts an edit no longer needs
 *
 * @module
 */
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

/** Where an edit or delete acts: conversation, thread and the platform message, URL-encoded. */
export function targetPart(
  receipt: MessageReceipt,
  message: Pick<ChannelMessage, "target">,
): string {
  const id = receipt.primaryPlatformMessageId ?? receipt.platformMessageIds.join(",");
  return [message.target.id, message.target.threadId ?? "", id].map(encodeURIComponent).join(":");
}

/**
 * The default key of the `n`-th edit of `receipt`'s message (see the module doc).
 *
 * @example
 * editKey(message, receipt, 2) // "edit:telegram:bot-1:chat-9::7:2"
 */
export function editKey(
  message: ChannelMessage,
  receipt: MessageReceipt,
  n: number | string,
): string {
  return `${keyNamespace("edit", message)}${targetPart(receipt, message)}:${n}`;
}

/**
 * The default idempotency key of an operation on `message` (see the module doc for formats).
 * For an edit it is the key of the first edit (`editKey(…, 1)`); the send runtime picks the
 * number (`send/editKey.ts`).
 *
 * @example
 * defaultIdempotencyKey({ kind: "send" }, message) // "send:telegram:bot-1:m-42"
 */
export function defaultIdempotencyKey(operation: IntentOperation, message: ChannelMessage): string {
  if (operation.kind === "send") return `${keyNamespace("send", message)}${message.id}`;
  if (operation.kind === "delete")
    return `${keyNamespace("delete", message)}${targetPart(operation.receipt, message)}`;
  if (operation.kind === "reaction")
    return `${keyNamespace("reaction", message)}${message.target.id}:${operation.messageId}:${operation.emoji}:${operation.remove ? "remove" : "add"}:${message.id}`;
  return editKey(message, operation.receipt, 1);
}

/** The default key of a live session (the key of its final): `live:<channel>:<account>:<id>`. */
export function defaultLiveKey(
  message: Pick<ChannelMessage, "channel" | "accountId" | "id">,
): string {
  return `${keyNamespace("live", message)}${message.id}`;
}

/**
 * The key of one platform call of an intent: unique per platform operation, stable across
 * retries of that operation. `part` names calls that are not units of the batch.
 */
export function unitIdempotencyKey(intentKey: string, index: number, part?: "leftover"): string {
  return part ? `${intentKey}#${part}.${index}` : `${intentKey}#${index}`;
}

/** The live intent of run `run` of the live session `key`: `<key>:live`, then `<key>:live#<run>`. */
export function liveIntentKey(key: string, run: number): string {
  return run === 1 ? `${key}:live` : `${key}:live#${run}`;
}

/**
 * The key of a turn's `n`-th reply to `inbound` (one slot per inbound and `n`: a handler run
 * again after a crash gets the reply already decided).
 *
 * @example
 * replyKey(inbound, 1) // "reply:telegram:bot-1:m-42:1"
 */
export function replyKey(
  inbound: Pick<ChannelMessage, "channel" | "accountId" | "id">,
  n: number,
): string {
  return `reply:${inbound.channel}:${inbound.accountId ?? ""}:${inbound.id}:${n}`;
}

/** The live session key of a turn's `n`-th streamed reply to `inbound`. */
export function streamReplyKey(
  inbound: Pick<ChannelMessage, "channel" | "accountId" | "id">,
  n: number,
): string {
  return `stream:${inbound.channel}:${inbound.accountId ?? ""}:${inbound.id}:${n}`;
}

/**
 * The keys whose intent proves a turn's first reply to `inbound` durable: the first text reply,
 * the first streamed reply's live intent, or its final. Once one exists the inbound message is
 * complete (DESIGN §3 "Waiting is durable", §5): its handler is not run again.
 */
export function firstReplyKeys(
  inbound: Pick<ChannelMessage, "channel" | "accountId" | "id">,
): string[] {
  const stream = streamReplyKey(inbound, 1);
  return [replyKey(inbound, 1), liveIntentKey(stream, 1), stream];
}
