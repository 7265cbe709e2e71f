/**
 * Ending a live session, shared by the session itself and crash recovery: delete the previews a
 * final did not reuse (only **after** the final was accepted), or apply the preview policy when
 * there is no final, then close the live intent. Deletes are repeated until they succeed ("not
 * found" counts as deleted); what still fails is left for the next recovery pass.
 *
 * @module
 */

import type { LivePreviewPolicy } from "../adapter/live.ts";
import { failpoint } from "../failpoint.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { liveCall, liveContext, retryIdempotent } from "./calls.ts";
import type { LiveRef } from "./env.ts";
import { commitVisibleFinal } from "./final.ts";
import { type LivePreview, previewsReceipt, visiblePreviews } from "./record.ts";

/**
 * Deletes every visible preview whose id is not in `keepIds`.
 *
 * @returns false when a delete failed in a way a later pass may fix (the rest was done).
 */
export async function removePreviews(ref: LiveRef, keepIds: ReadonlySet<string>): Promise<boolean> {
  const remove = ref.adapter.send.delete;
  let complete = true;
  for (const p of visiblePreviews(ref.record)) {
    const id = p.part.platformMessageId;
    if (keepIds.has(id)) continue;
    if (id === "" || !remove || ref.adapter.capabilities.live?.delete === false) {
      ref.log.warn(
        { index: p.index, platformMessageId: id },
        "a preview cannot be deleted (no platform id, or the channel cannot delete); it stays visible",
      );
      continue;
    }
    failpoint("live.before_preview_delete");
    const rl = liveCall(ref, "delete", p.part.kind, p.part);
    const ctx = liveContext(ref, `${ref.intentId}:cleanup`, p.index, undefined, rl);
    const r = await retryIdempotent(ref, {
      call: "delete",
      rateLimit: rl,
      ctx,
      fn: () => remove(ctx, p.part),
      notFoundIsSuccess: true,
    });
    if (r.ok) {
      p.deleted = true;
      await ref.save();
    } else if (r.retryable) {
      complete = false;
    } else {
      ref.log.error(
        { index: p.index, platformMessageId: id, failureKind: r.failure.kind },
        `could not delete a preview: ${r.failure.message}`,
      );
    }
  }
  return complete;
}

/**
 * After the final landed: deletes the previews it did not reuse and closes the live intent.
 * @returns false when some delete must be retried by recovery (the lease is released for it).
 */
export async function completeAfterFinal(ref: LiveRef, final: MessageReceipt): Promise<boolean> {
  const done = await removePreviews(ref, new Set(final.platformMessageIds));
  if (!done) {
    await ref.release();
    return false;
  }
  await ref.close("finalized");
  return true;
}

/**
 * Ends a session that has no final: `keep` records the visible previews as the message under
 * the session's key (a native stream is finished first); `delete` deletes them.
 * @returns what was done; `incomplete` when deletes must be retried by recovery.
 */
export async function endWithoutFinal(
  ref: LiveRef,
  policy: LivePreviewPolicy,
): Promise<"kept" | "deleted" | "incomplete"> {
  if (policy === "keep") {
    await finishOpenStream(ref);
    const receipt = previewsReceipt(ref.record, visiblePreviews(ref.record), ref.now);
    if (receipt) await commitVisibleFinal(ref, ref.record.key, receipt);
    await ref.close("kept");
    return "kept";
  }
  const done = await removePreviews(ref, new Set());
  if (!done) {
    await ref.save();
    await ref.release();
    return "incomplete";
  }
  await ref.close("deleted");
  return "deleted";
}

/** Stops a native stream that is still open, leaving its text as it is. */
async function finishOpenStream(ref: LiveRef): Promise<void> {
  const stream = ref.adapter.live?.stream;
  const p = visiblePreviews(ref.record).find((x) => x.stream);
  if (!stream || !p || p.part.platformMessageId === "") return;
  const rl = liveCall(ref, "stream_finish", "text", p.part);
  const ctx = liveContext(ref, `${ref.intentId}:finish-kept`, 0, undefined, rl);
  const r = await retryIdempotent(ref, {
    call: "edit",
    rateLimit: rl,
    ctx,
    fn: () => stream.finish(ctx, p.part),
    notFoundIsSuccess: false,
  });
  if (!r.ok) ref.log.warn({ failureKind: r.failure.kind }, "could not finish a native stream");
}

/** Records a preview (replacing any at its index) and clears the in-flight marker. */
export function addPreview(ref: LiveRef, preview: LivePreview): void {
  const { record } = ref;
  record.previews = [...record.previews.filter((p) => p.index !== preview.index), preview].sort(
    (a, b) => a.index - b.index,
  );
  delete record.sendingPreview;
}

/** Logs a failed reconciliation (never swallowed) and tells the runtime's `onReconcileError`. */
function reportReconcileError(
  ref: LiveRef,
  marker: { index: number; idempotencyKey: string },
  error: unknown,
): void {
  ref.log.error(
    { err: error, index: marker.index, idempotencyKey: marker.idempotencyKey },
    "could not reconcile an in-doubt preview; it may stay visible (retried on the next pass)",
  );
  try {
    ref.env.onReconcileError?.({
      channel: ref.base.channel,
      ...(ref.base.accountId !== undefined ? { accountId: ref.base.accountId } : {}),
      intentId: ref.intentId,
      error,
    });
  } catch (hookError) {
    ref.log.error({ err: hookError }, "onReconcileError hook threw");
  }
}

/**
 * Settles a preview send that was in flight when the process died, whose answer was lost, or
 * that was answered without a message id (C12): asks the adapter (`reconcileUnknownSend`)
 * whether it exists, and records it (with its id) if so.
 */
export async function resolveInDoubtPreview(ref: LiveRef): Promise<void> {
  const marker = ref.record.sendingPreview;
  if (!marker) return;
  const reconcile = ref.adapter.send.reconcileUnknownSend;
  if (!reconcile) {
    ref.log.warn(
      { index: marker.index },
      "a preview send's outcome is unknown and the channel cannot reconcile it; it may stay visible",
    );
    return;
  }
  if (!marker.unit) {
    reportReconcileError(
      ref,
      marker,
      new Error("the in-doubt preview's payload was not recorded (written by an older version)"),
    );
    return;
  }
  const ctx = liveContext(ref, marker.idempotencyKey, marker.index);
  // The unit exactly as it was sent: reconcilers look for its payload (DESIGN §6).
  const unit = { ...marker.unit, index: marker.index };
  let r: Awaited<ReturnType<typeof reconcile>>;
  try {
    r = await reconcile(ctx, [unit]);
  } catch (error) {
    reportReconcileError(ref, marker, error);
    return;
  }
  if (r.status === "unresolved") return;
  if (r.status === "sent") {
    const part = r.parts[0];
    const known = ref.record.previews.find((p) => p.index === marker.index);
    if (part?.platformMessageId && (!known || known.gone || known.part.platformMessageId === "")) {
      // A preview that answered without an id keeps its hash: we know what it shows.
      const hash = known && !known.gone ? known.hash : "";
      addPreview(ref, {
        index: marker.index,
        part: { ...part, index: marker.index },
        hash,
        sentAt: known?.sentAt ?? ref.now,
      });
    }
  }
  delete ref.record.sendingPreview;
  await ref.save();
}
