/**
 * Receipts: the bridge from a durable intent to later edits, deletes, preview finalization,
 * echo recognition and recovery (seed `message-lifecycle.md`, "Receipt").
 *
 * @module
 */

/** What one delivered unit is. */
export type MessagePartKind =
  | "text"
  | "media"
  | "voice"
  | "card"
  | "preview"
  /**
   * A reaction added or removed: `platformMessageId` is `reaction:<unit key>` (a reaction is
   * not a message), `replyToId` the reacted-to message.
   */
  | "reaction"
  | "unknown";

/** One platform message that a delivery produced. */
export type MessageReceiptPart = {
  platformMessageId: string;
  kind: MessagePartKind;
  /** Index of the {@link RenderedMessageUnit} this part delivered. */
  index: number;
  threadId?: string;
  replyToId?: string;
  editToken?: string;
  deleteToken?: string;
  url?: string;
  raw?: unknown;
};

/**
 * The platform's answer to a (possibly multi-part) delivery. `platformMessageIds` lists every
 * id in unit order; `primaryPlatformMessageId` is the one to thread under and edit.
 */
export type MessageReceipt = {
  primaryPlatformMessageId?: string;
  platformMessageIds: string[];
  parts: MessageReceiptPart[];
  threadId?: string;
  replyToId?: string;
  editToken?: string;
  deleteToken?: string;
  url?: string;
  /** Epoch milliseconds when the last part was accepted. */
  sentAt: number;
  raw?: unknown;
};

/**
 * Builds a receipt from delivered parts: parts sorted by unit index, every platform id kept in
 * that order, the primary id taken from the lowest-index part.
 *
 * @param parts - the parts, in any order; a later part with the same index replaces an earlier one.
 * @param extra - receipt-level fields; `sentAt` defaults to `Date.now()`.
 */
export function receiptFromParts(
  parts: readonly MessageReceiptPart[],
  extra: Partial<Omit<MessageReceipt, "parts" | "platformMessageIds">> = {},
): MessageReceipt {
  const byIndex = new Map<number, MessageReceiptPart>();
  for (const part of parts) byIndex.set(part.index, part);
  const sorted = [...byIndex.values()].sort((a, b) => a.index - b.index);
  const receipt: MessageReceipt = {
    ...extra,
    platformMessageIds: uniqueIds(sorted.map((p) => p.platformMessageId)),
    parts: sorted,
    sentAt: extra.sentAt ?? Date.now(),
  };
  const primary = extra.primaryPlatformMessageId ?? sorted[0]?.platformMessageId;
  if (primary !== undefined) receipt.primaryPlatformMessageId = primary;
  const threadId = extra.threadId ?? sorted.find((p) => p.threadId !== undefined)?.threadId;
  if (threadId !== undefined) receipt.threadId = threadId;
  return receipt;
}

/**
 * Merges two receipts of the same intent (for example the partial receipt saved before a crash
 * and the parts sent after it). Parts are merged by unit index (`next` wins), every platform id
 * is kept, and the primary id stays the one of the lowest-index part unless `previous` named one.
 */
export function mergeReceipts(
  previous: MessageReceipt | undefined,
  next: MessageReceipt,
): MessageReceipt {
  if (!previous) return receiptFromParts(next.parts, withoutParts(next));
  const merged = receiptFromParts([...previous.parts, ...next.parts], {
    ...withoutParts(previous),
    ...withoutParts(next),
    sentAt: Math.max(previous.sentAt, next.sentAt),
  });
  // Ids a receipt lists without a part (older adapters) are kept too.
  merged.platformMessageIds = uniqueIds([
    ...merged.platformMessageIds,
    ...previous.platformMessageIds,
    ...next.platformMessageIds,
  ]);
  const primary = previous.primaryPlatformMessageId ?? merged.parts[0]?.platformMessageId;
  if (primary !== undefined) merged.primaryPlatformMessageId = primary;
  return merged;
}

/** Unit indexes that already have a part in `receipt` (used to send only missing units). */
export function deliveredUnitIndexes(receipt: MessageReceipt | undefined): Set<number> {
  return new Set(receipt?.parts.map((p) => p.index) ?? []);
}

function withoutParts(
  r: MessageReceipt,
): Partial<Omit<MessageReceipt, "parts" | "platformMessageIds">> {
  const { parts: _parts, platformMessageIds: _ids, ...rest } = r;
  return rest;
}

function uniqueIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
