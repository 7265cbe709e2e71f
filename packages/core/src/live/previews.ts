/**
 * One step of a preview stream (`partial`, `block`, `progress`): render the newest input, find
 * the first preview that differs from its unit (by rendered hash — an unchanged render is never
 * sent), and send or edit it if the rate limits allow. The session runs one step at a time, so
 * one call is in flight and the newest text wins.
 *
 * Failures never end a stream: a rate limit pauses the chat until the platform's retry-after;
 * a not-dispatched failure is retried with backoff; a send whose outcome is unknown is looked up
 * after the settle delay (`inDoubt.ts`) before another is sent; an edit whose outcome is unknown is simply
 * edited again ("not modified" is success); an edit answered "not found" means the preview is
 * gone and a new one replaces it. Anything else, or too many failures in a row, stops the
 * previews; the final is still delivered.
 *
 * @module
 */
import { failpoint } from "../failpoint.ts";
import type { RenderedMessageUnit } from "../message/batch.ts";
import type { DeliveryFailure } from "../message/failure.ts";
import { RETRY_POLICY } from "../message/failure.ts";
import type { RateLimitCall } from "../message/rateLimit.ts";
import {
  backoffMs,
  liveCall,
  liveContext,
  nextCallKey,
  pauseFor,
  reserveNow,
  tryCall,
} from "./calls.ts";
import { canEdit, type LiveRef, scopesFor } from "./env.ts";
import { addPreview, resolveInDoubtPreview } from "./inDoubt.ts";
import type { LivePreview } from "./record.ts";
import { segmentsOf, unitHash } from "./segments.ts";
import type { LiveMode } from "./types.ts";

/** What a session's producer has asked for so far, and how its previews are doing. */
export type Feed = {
  text: string;
  progress: string;
  /** Bumped by every update. */
  version: number;
  /** Consecutive failed preview calls (rate limits not counted). */
  failures: number;
  /** Consecutive 429s: the pause grows with the backoff when the platform gives no retry-after. */
  rateLimited?: number;
  /** Why previews stopped; absent while they run. */
  degraded?: string;
  /** Rendered units of `version`. */
  cache?: { version: number; units: RenderedMessageUnit[] };
  /** Native mode: the text the stream shows (begin's text plus every acknowledged append). */
  streamed?: string;
  /** Native mode: an append's outcome is unknown, so the stream may show more than `streamed`. */
  streamUncertain?: boolean;
};

/** What the session does after a step. */
export type StepResult = { next: "again" } | { next: "idle" } | { next: "wait"; ms: number };

const AGAIN: StepResult = { next: "again" };
const IDLE: StepResult = { next: "idle" };

/** Stops preview updates for the rest of the session. */
export function degrade(ref: LiveRef, feed: Feed, reason: string): StepResult {
  feed.degraded = reason;
  ref.log.warn({ reason }, "live previews stopped; the final will still be delivered");
  return IDLE;
}

type Op =
  | { kind: "send"; index: number; unit: RenderedMessageUnit; hash: string }
  | { kind: "edit"; preview: LivePreview; unit: RenderedMessageUnit; hash: string }
  | { kind: "stop"; reason: string };

function nextOp(ref: LiveRef, units: readonly RenderedMessageUnit[]): Op | undefined {
  for (const unit of units) {
    const hash = unitHash(unit);
    const preview = ref.record.previews.find((p) => p.index === unit.index);
    if (!preview || preview.gone) return { kind: "send", index: unit.index, unit, hash };
    if (preview.hash === hash) continue;
    if (preview.part.platformMessageId === "")
      return { kind: "stop", reason: "the preview has no platform id, so it cannot be edited" };
    if (!canEdit(ref.adapter)) return { kind: "stop", reason: "the channel cannot edit messages" };
    return { kind: "edit", preview, unit, hash };
  }
  return undefined;
}

/**
 * Before any preview call: a preview send still in doubt is looked up first (once its settle
 * delay has passed), so no second preview is sent while the first may still appear.
 * @returns the step's result while it is in doubt; undefined when the step may go on.
 */
export async function inDoubtGate(ref: LiveRef, feed: Feed): Promise<StepResult | undefined> {
  const marker = ref.record.sendingPreview;
  if (!marker) return undefined;
  // A channel that deduplicates by key: sending again under the same key is the lookup.
  if (ref.adapter.capabilities.delivery?.idempotencyKey && !marker.answered) return undefined;
  const outcome = await resolveInDoubtPreview(ref);
  if (outcome.status === "settled") return undefined;
  if (outcome.status === "settling") return { next: "wait", ms: outcome.waitMs };
  // The marker stays: the final's cleanup (or recovery) looks for that preview again.
  return degrade(ref, feed, "a preview send's outcome is unknown and cannot be reconciled");
}

/** Runs one preview step. */
export async function previewStep(ref: LiveRef, feed: Feed, mode: LiveMode): Promise<StepResult> {
  const gate = await inDoubtGate(ref, feed);
  if (gate) return gate;
  if (feed.cache?.version !== feed.version) {
    const units = await segmentsOf(
      ref.adapter,
      ref.base,
      mode,
      feed,
      false,
      `${ref.record.key}:preview`,
    );
    feed.cache = { version: feed.version, units };
  }
  const op = nextOp(ref, feed.cache.units);
  if (!op) return IDLE;
  if (op.kind === "stop") return degrade(ref, feed, op.reason);
  // The same operations and routes as durable sends: previews and finals share the buckets.
  const rl =
    op.kind === "send"
      ? liveCall(ref, "send", op.unit.kind)
      : liveCall(ref, "edit", op.unit.kind, op.preview.part);
  const wait = reserveNow(ref, scopesFor(ref.adapter, "preview"), rl);
  if (wait > 0) return { next: "wait", ms: wait };
  return op.kind === "send" ? sendPreview(ref, feed, op, rl) : editPreview(ref, feed, op, rl);
}

async function sendPreview(
  ref: LiveRef,
  feed: Feed,
  op: Extract<Op, { kind: "send" }>,
  rl: RateLimitCall,
): Promise<StepResult> {
  const { record } = ref;
  if (record.previews.some((p) => p.index === op.index && p.gone)) record.replacements += 1;
  const key = `${ref.intentId}:preview.${record.replacements}`;
  // Written before the call: if we die before the receipt is saved, recovery can look for it.
  record.sendingPreview = {
    index: op.index,
    idempotencyKey: key,
    unit: op.unit,
    startedAt: ref.now,
  };
  await ref.save();
  const ctx = liveContext(ref, key, op.index, undefined, rl);
  const r = await tryCall(ref, ctx, () => ref.adapter.send.send(ctx, op.unit), rl);
  if (!r.ok) return failed(ref, feed, "send", r.failure, rl);
  failpoint("live.after_preview");
  const part = { ...r.value, index: op.index };
  addPreview(ref, { index: op.index, part, hash: op.hash, sentAt: ref.now });
  feed.failures = 0;
  feed.rateLimited = 0;
  if (part.platformMessageId === "" && ref.adapter.send.reconcileUnknownSend) {
    // C12: answered without an id. Look it up by its key so it can still be edited.
    ref.record.sendingPreview = {
      index: op.index,
      idempotencyKey: key,
      unit: op.unit,
      answered: true,
    };
    await resolveInDoubtPreview(ref);
  }
  await ref.save();
  return AGAIN;
}

async function editPreview(
  ref: LiveRef,
  feed: Feed,
  op: Extract<Op, { kind: "edit" }>,
  rl: RateLimitCall,
): Promise<StepResult> {
  const edit = ref.adapter.send.edit;
  if (!edit) return degrade(ref, feed, "the channel cannot edit messages");
  const ctx = liveContext(ref, nextCallKey(ref, "edit"), op.preview.index, undefined, rl);
  const r = await tryCall(ref, ctx, () => edit(ctx, op.preview.part, op.unit), rl);
  if (!r.ok) return failed(ref, feed, "edit", r.failure, rl, op.preview);
  op.preview.hash = op.hash;
  feed.failures = 0;
  feed.rateLimited = 0;
  await ref.save();
  return AGAIN;
}

/** Decides what a failed preview call means for the stream. */
export async function failed(
  ref: LiveRef,
  feed: Feed,
  call: "send" | "edit",
  failure: DeliveryFailure,
  rl: RateLimitCall,
  preview?: LivePreview,
): Promise<StepResult> {
  ref.log.debug(
    { call, failureKind: failure.kind, evidence: failure.evidence },
    `preview ${call} failed: ${failure.message}`,
  );
  if (failure.kind === "rate_limit") {
    feed.rateLimited = (feed.rateLimited ?? 0) + 1;
    return { next: "wait", ms: pauseFor(ref, failure, rl, feed.rateLimited) };
  }
  if (call === "edit" && preview && failure.kind === "not_found") {
    preview.gone = true; // the platform lost it: the next step sends a replacement
    await ref.save();
    return AGAIN;
  }
  feed.failures += 1;
  const retryLater = (): StepResult =>
    feed.failures >= ref.env.maxPreviewFailures
      ? degrade(ref, feed, `${feed.failures} preview calls failed in a row (${failure.kind})`)
      : { next: "wait", ms: backoffMs(ref, feed.failures) };
  if (failure.evidence === "maybe_sent") {
    if (call === "edit") {
      if (preview) preview.hash = ""; // shows the old or the new text: edit again
      return retryLater();
    }
    // A preview may exist that we have no id for.
    if (ref.adapter.capabilities.delivery?.idempotencyKey) return retryLater(); // same key: deduplicated
    // Never another preview before the lookup proves the first absent: wait the settle delay
    // (the marker is on the live record), and a best-effort "not sent" proves nothing.
    return (await inDoubtGate(ref, feed)) ?? retryLater();
  }
  if (RETRY_POLICY[failure.kind].retry) return retryLater();
  if (call === "send") delete ref.record.sendingPreview;
  return degrade(ref, feed, `preview ${call} rejected: ${failure.kind}: ${failure.message}`);
}
