/**
 * Ending a live session, shared by the session itself and crash recovery: delete the previews a
 * final did not reuse (only **after** the final was accepted), or apply the preview policy when
 * there is no final, then close the live intent. Deletes are repeated until they succeed ("not
 * found" counts as deleted); what still fails is left for the next recovery pass.
 *
 * @module
 */

import type { LiveCancelReason, LivePreviewPolicy } from "../adapter/live.ts";
import { liveLifecycleOf, liveStateOf } from "../adapter/liveLifecycle.ts";
import { failpoint } from "../failpoint.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { coreMutation } from "../mutation.ts";
import { liveCall, liveContext, retryIdempotent } from "./calls.ts";
import type { LiveRef } from "./env.ts";
import { commitVisibleFinal } from "./final.ts";
import { resolveInDoubtPreview } from "./inDoubt.ts";
import { previewsReceipt, visiblePreviews } from "./record.ts";

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
 * Settles an in-doubt preview send before previews are cleaned up: `sleep` (the session's)
 * waits out the settle delay — the final is already durable, and the marker is on the live
 * record, so a crash leaves it to recovery; without `sleep` (recovery) a pass that comes too
 * early gives up and the next pass looks again.
 *
 * @returns false when a preview may still exist that no lookup has found yet.
 */
async function settleInDoubt(
  ref: LiveRef,
  sleep?: (ms: number) => Promise<void>,
): Promise<boolean> {
  for (;;) {
    const outcome = await resolveInDoubtPreview(ref);
    if (outcome.status === "settled" || outcome.status === "unknowable") return true;
    if (outcome.status === "in_doubt" || !sleep) return false;
    await sleep(outcome.waitMs);
  }
}

/**
 * After the final landed: settles an in-doubt preview send (see {@link settleInDoubt}), deletes
 * the previews the final did not reuse and closes the live intent.
 * @returns false when some delete (or lookup) must be retried by recovery (the lease is
 *   released for it).
 */
export async function completeAfterFinal(
  ref: LiveRef,
  final: MessageReceipt,
  sleep?: (ms: number) => Promise<void>,
): Promise<boolean> {
  const settled = await settleInDoubt(ref, sleep);
  const keep = new Set(final.platformMessageIds);
  const done =
    coreMutation("live.keep-previews-after-fresh-final") &&
    !visiblePreviews(ref.record).some((p) => keep.has(p.part.platformMessageId))
      ? true // test-only mutant: a fresh final leaves its previews visible
      : await removePreviews(ref, keep);
  if (!done || !settled) {
    await ref.save();
    await ref.release();
    return false;
  }
  await ref.close("finalized");
  return true;
}

/**
 * Ends a session that has no final: `keep` records the visible previews as the message under
 * the session's key (a native stream is finished first); `delete` settles an in-doubt preview
 * send, then deletes them. `reason` is handed to the live lifecycle's `cancel` (recovery: `aborted`).
 * @returns what was done; `incomplete` when deletes must be retried by recovery.
 */
export async function endWithoutFinal(
  ref: LiveRef,
  policy: LivePreviewPolicy,
  sleep?: (ms: number) => Promise<void>,
  reason: LiveCancelReason = "aborted",
): Promise<"kept" | "deleted" | "incomplete"> {
  if (policy === "keep") {
    await resolveInDoubtPreview(ref); // found: it is kept with the others
    await finishOpenStream(ref, reason);
    const receipt = previewsReceipt(ref.record, visiblePreviews(ref.record), ref.now);
    if (receipt) await commitVisibleFinal(ref, ref.record.key, receipt);
    await ref.close("kept");
    return "kept";
  }
  const settled = await settleInDoubt(ref, sleep);
  const done = await removePreviews(ref, new Set());
  if (!done || !settled) {
    await ref.save();
    await ref.release();
    return "incomplete";
  }
  await ref.close("deleted");
  return "deleted";
}

/**
 * Stops a native stream that is still open, leaving its text as it is (the live lifecycle's
 * `cancel`).
 */
async function finishOpenStream(ref: LiveRef, reason: LiveCancelReason): Promise<void> {
  const live = liveLifecycleOf(ref.adapter);
  const p = visiblePreviews(ref.record).find((x) => x.stream);
  if (!live || !p || p.part.platformMessageId === "") return;
  const rl = liveCall(ref, "stream_finish", "text", p.part);
  const ctx = liveContext(ref, `${ref.intentId}:finish-kept`, 0, undefined, rl);
  const r = await retryIdempotent(ref, {
    call: "edit",
    rateLimit: rl,
    ctx,
    fn: () => live.cancel(ctx, liveStateOf(p.part, p.sentAt), reason),
    notFoundIsSuccess: false,
  });
  if (!r.ok) ref.log.warn({ failureKind: r.failure.kind }, "could not finish a native stream");
}
