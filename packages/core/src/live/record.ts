/**
 * What a live session saves on its **live intent** (`intent.liveState`), so that recovery in
 * any process knows which previews exist and how far the final got. It extends the domain's
 * {@link LiveMessageState} (whose fields are kept filled in for operators) with the preview list.
 *
 * The live intent itself is never delivered while a session runs: it stays `pending`, leased by
 * the session's process, with `nextAttemptAt` half of `maxScheduleAheadMs` ahead and an
 * ordering key of its own (`["live", key]`), so it blocks nothing in its chat. Its
 * `partialReceipt` lists the previews, which indexes their ids in the outbound registry (our
 * own echoes are recognised) and makes a stray delivery by the worker a no-op.
 *
 * @module
 */

import type { LivePreviewPolicy } from "../adapter/live.ts";
import type { RenderedMessageUnit } from "../message/batch.ts";
import type { LiveMessageState } from "../message/live.ts";

export { liveIntentKey } from "../message/keys.ts";

import {
  type MessageReceipt,
  type MessageReceiptPart,
  receiptFromParts,
} from "../message/receipt.ts";

/** Marks a `liveState` written by this module (and its format version). */
export const LIVE_RECORD_TAG = "herald.live/1";

/** One preview message (or the native stream's message). */
export type LivePreview = {
  /** Position among the session's messages; final unit `index` maps onto it. */
  index: number;
  /** The platform's receipt part; `platformMessageId` is `""` when it answered without an id. */
  part: MessageReceiptPart;
  /** Hash of the rendered unit it shows; `""` when unknown (an edit whose outcome is unknown). */
  hash: string;
  /** Epoch ms when it was sent. */
  sentAt: number;
  /** The platform said it no longer exists (an edit answered not found). */
  gone?: true;
  /** Deleted by herald (cancel, or cleanup after a fresh final). */
  deleted?: true;
  /** The native stream's message. */
  stream?: true;
};

/**
 * Where a session is:
 * - `streaming`: previews may exist, no final asked for; recovery applies `onRecover`;
 * - `finalizing`: a final under `finalKey` was (or is about to be) enqueued; recovery waits
 *   for it, then deletes the previews it did not reuse;
 * - `cancelling`: ended without a final; recovery applies `onCancel`;
 * - `done`: nothing left to do (the live intent is `cancelled`).
 */
export type LivePhase = "streaming" | "finalizing" | "cancelling" | "done";

/** The saved state of one live session. Plain JSON. */
export type LiveRecord = LiveMessageState & {
  tag: typeof LIVE_RECORD_TAG;
  /** The session's idempotency key: the key of its final intent. */
  key: string;
  phase: LivePhase;
  previews: LivePreview[];
  onCancel: LivePreviewPolicy;
  onRecover: LivePreviewPolicy;
  /** Previews replaced after the platform lost them; keeps preview send keys unique. */
  replacements: number;
  /**
   * A preview send (or stream begin) in flight, written before the call: if the process dies
   * before its receipt is saved, recovery asks the adapter (`reconcileUnknownSend`) for it.
   */
  sendingPreview?: {
    index: number;
    idempotencyKey: string;
    /**
     * The unit the call sent (its payload is what a reconciler looks for). Absent on records of
     * older versions: such a preview cannot be reconciled and is logged as such.
     */
    unit?: RenderedMessageUnit;
    /**
     * Epoch ms when the call began: the settle delay before its first lookup counts from here.
     * Absent on older records (looked up at once).
     */
    startedAt?: number;
    /** The send was answered without a message id (C12): it exists; only its id is sought. */
    answered?: true;
  };
  /** Key of the final intent actually used (`key`, or `${key}:fresh` after a lost preview). */
  finalKey?: string;
  /** Native mode: the final text being written into the stream by `finish`. */
  nativeFinal?: string;
  /**
   * Native mode: what the stream showed when `finish` was asked (`exact: false` after an append
   * of unknown outcome), so a recovered `finish` does not double text either.
   */
  nativeShown?: { text: string; exact: boolean };
  /** Why the session ended. */
  outcome?: "finalized" | "cancelled" | "kept" | "deleted";
};

/** True for a `liveState` written by this module. */
export function isLiveRecord(state: unknown): state is LiveRecord {
  return (state as { tag?: unknown } | undefined)?.tag === LIVE_RECORD_TAG;
}

/** Ordering key of a live intent: its own, so the held intent never blocks its chat. */
export function liveOrderingKey(key: string): string {
  return JSON.stringify(["live", key]);
}

/** Previews that may still be visible (not deleted, not gone). */
export function visiblePreviews(record: LiveRecord): LivePreview[] {
  return record.previews.filter((p) => !p.deleted && !p.gone);
}

/** A receipt of the given previews (all visible ones by default), or undefined when none. */
export function previewsReceipt(
  record: LiveRecord,
  previews: readonly LivePreview[] = visiblePreviews(record),
  sentAt = 0,
): MessageReceipt | undefined {
  if (previews.length === 0) return undefined;
  const at = sentAt || Math.max(...previews.map((p) => p.sentAt));
  return receiptFromParts(
    previews.map((p) => ({ ...p.part, index: p.index })),
    { sentAt: at },
  );
}

/** True when the first preview is older than `staleAfterMs` at `now`. */
export function isStale(record: LiveRecord, now: number): boolean {
  const since = record.previews[0]?.sentAt ?? record.visibleSince;
  return (
    record.staleAfterMs !== undefined && since !== undefined && now - since >= record.staleAfterMs
  );
}

/**
 * Refreshes the domain fields (`receipt`, `visibleSince`, `lastRenderedHash`,
 * `canFinalizeInPlace`) from the preview list before the record is saved or shown.
 */
export function withDerivedFields(record: LiveRecord, now: number, canEdit: boolean): LiveRecord {
  const visible = visiblePreviews(record);
  const receipt = previewsReceipt(record, visible);
  const next: LiveRecord = { ...record };
  if (receipt) next.receipt = receipt;
  else delete next.receipt;
  const first = record.previews[0]?.sentAt;
  if (first !== undefined) next.visibleSince = first;
  const last = visible.at(-1)?.hash;
  if (last) next.lastRenderedHash = last;
  next.canFinalizeInPlace =
    visible.length > 0 &&
    record.previews.every((p) => !p.gone) &&
    canEdit &&
    visible.every((p) => p.part.platformMessageId !== "") &&
    !isStale(record, now);
  return next;
}
