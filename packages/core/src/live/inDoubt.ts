/**
 * Preview sends whose outcome is unknown (a timeout, a crash before the receipt was saved, an
 * answer without a message id — C12), settled like the delivery path settles an unknown send
 * (DESIGN §3 "Replay gate"): the first lookup waits the adapter's settle delay
 * (`requestTimeoutMs + visibilityLagMs`, counted from when the call began), and a `not_sent`
 * proves absence only when the reconciler declares `notSent: "complete"`. Until then the
 * in-flight marker stays on the live record (durable), so the session or recovery looks again.
 *
 * @module
 */
import { reconcileDeclaration, settleDelayMs } from "../delivery/gate.ts";
import { liveContext } from "./calls.ts";
import type { LiveRef } from "./env.ts";
import type { LivePreview } from "./record.ts";

/**
 * What a lookup of an in-doubt preview concluded:
 * - `settled`: no preview is in doubt any more (found and recorded, or proven absent);
 * - `settling`: the settle delay has not passed; look again in `waitMs` ms;
 * - `in_doubt`: the lookup proved nothing (`best_effort` not_sent, unresolved, the reconciler
 *   threw); a later lookup may still find it;
 * - `unknowable`: the channel cannot reconcile it (no reconciler, or no recorded payload).
 */
export type InDoubtOutcome =
  | { status: "settled" }
  | { status: "settling"; waitMs: number }
  | { status: "in_doubt" }
  | { status: "unknowable" };

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
 * Settles the preview send recorded in `record.sendingPreview`: asks the adapter
 * (`reconcileUnknownSend`) whether it exists once the settle delay has passed, and records it
 * (with its id) if so. Never waits itself. A send that was answered without an id (C12,
 * `marker.answered`) exists: it is looked up at once, and a `not_sent` only means its id stays
 * unknown.
 */
export async function resolveInDoubtPreview(ref: LiveRef): Promise<InDoubtOutcome> {
  const marker = ref.record.sendingPreview;
  if (!marker) return { status: "settled" };
  const opts = { answered: marker.answered === true };
  const reconcile = ref.adapter.send.reconcileUnknownSend;
  if (!reconcile) {
    ref.log.warn(
      { index: marker.index },
      "a preview send's outcome is unknown and the channel cannot reconcile it; it may stay visible",
    );
    return { status: "unknowable" };
  }
  if (!marker.unit) {
    reportReconcileError(
      ref,
      marker,
      new Error("the in-doubt preview's payload was not recorded (written by an older version)"),
    );
    return { status: "unknowable" };
  }
  if (!opts.answered) {
    const waitMs = (marker.startedAt ?? 0) + settleDelayMs(ref.adapter) - ref.now;
    if (waitMs > 0) return { status: "settling", waitMs };
  }
  const ctx = liveContext(ref, marker.idempotencyKey, marker.index);
  // The unit exactly as it was sent: reconcilers look for its payload (DESIGN §6).
  const unit = { ...marker.unit, index: marker.index };
  let r: Awaited<ReturnType<typeof reconcile>>;
  try {
    r = await reconcile(ctx, [unit]);
  } catch (error) {
    reportReconcileError(ref, marker, error);
    return { status: "in_doubt" };
  }
  if (r.status === "unresolved") return { status: "in_doubt" };
  if (r.status === "not_sent" && !opts.answered) {
    if (reconcileDeclaration(ref.adapter).notSent !== "complete") {
      // A best-effort lookup found nothing: that proves nothing (the marker stays).
      ref.log.warn(
        { index: marker.index },
        "an in-doubt preview was not found by a best-effort lookup; looked for again later",
      );
      return { status: "in_doubt" };
    }
  }
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
  return { status: "settled" };
}
