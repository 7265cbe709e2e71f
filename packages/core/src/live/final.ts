/**
 * The final message of a live session, always through the durable send path: an intent under
 * the session's idempotency key, delivered by the delivery worker with its receipts, retries,
 * reconciliation and tombstone. In place it is an `edit` intent over the previews (previews
 * whose text already equals their final unit are pre-recorded as delivered and never called);
 * otherwise a `send` intent.
 *
 * @module
 */
import { runSendHook } from "../adapter/hooks.ts";
import {
  DeliveryCancelledError,
  DeliveryExpiredError,
  DeliveryFailedError,
  DeliveryPendingError,
} from "../delivery/errors.ts";
import { maxAgeFor } from "../delivery/expiry.ts";
import { within } from "../delivery/within.ts";
import { failpoint } from "../failpoint.ts";
import type { RenderedMessageBatch, RenderedMessageUnit } from "../message/batch.ts";
import type { DurableSendIntent, IntentOperation } from "../message/intent.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { assertSamePlace } from "../send/conflict.ts";
import { IntentConflictError } from "../state/errors.ts";
import { liveContext } from "./calls.ts";
import { canDelete, canEdit, type LiveRef } from "./env.ts";
import { type LivePreview, previewsReceipt, visiblePreviews } from "./record.ts";
import { unitHash } from "./segments.ts";

/** How the final is delivered. */
export type FinalPlan =
  | {
      strategy: "in_place";
      /** Receipt of the previews the final's units map onto (edit targets). */
      targets: MessageReceipt;
      /** Previews that already show their final unit: recorded as delivered, never edited. */
      kept: MessageReceipt | undefined;
      /** How many previews must be edited. */
      edits: number;
    }
  | { strategy: "fresh"; reason: string };

/**
 * Decides whether `units` (the final, cut like the previews) can be delivered in place: every
 * unit is text, and each visible preview either already shows its unit or can be edited to it.
 * Units beyond the previews are new messages; previews beyond the units are deleted afterwards.
 */
export function planInPlace(ref: LiveRef, units: readonly RenderedMessageUnit[]): FinalPlan {
  const fresh = (reason: string): FinalPlan => ({ strategy: "fresh", reason });
  if (units.some((u) => u.kind !== "text")) return fresh("the final has media or cards");
  const { record } = ref;
  if (record.previews.some((p) => p.gone && !p.deleted)) return fresh("a preview is gone");
  const visible = visiblePreviews(record);
  if (visible.length === 0) return fresh("no preview is visible");
  const targets: LivePreview[] = [];
  const kept: LivePreview[] = [];
  for (const p of visible) {
    if (p.stream) return fresh("a native stream is finished, not edited");
    const unit = units[p.index];
    if (!unit) continue;
    targets.push(p);
    if (p.hash !== "" && p.hash === unitHash(unit)) kept.push(p);
    else if (p.part.platformMessageId === "" || !canEdit(ref.adapter))
      return fresh("a preview that must change cannot be edited");
  }
  const receipt = previewsReceipt(record, targets);
  if (!receipt) return fresh("no preview maps onto the final");
  return {
    strategy: "in_place",
    targets: receipt,
    kept: previewsReceipt(record, kept),
    edits: targets.length - kept.length,
  };
}

/**
 * The receipt of the visible previews when they already show exactly `units` (one preview per
 * unit, each with the unit's hash), else `undefined`: a preview call that landed while the final
 * was being written may have shown it (C12 — never preview plus a copy).
 */
export function previewsShowing(
  ref: LiveRef,
  units: readonly RenderedMessageUnit[],
): MessageReceipt | undefined {
  const visible = visiblePreviews(ref.record);
  if (visible.length !== units.length || visible.length === 0) return undefined;
  for (const p of visible) {
    const unit = units[p.index];
    if (p.stream || !unit || unit.kind !== "text" || p.hash === "" || p.hash !== unitHash(unit))
      return undefined;
  }
  return previewsReceipt(ref.record, visible);
}

/** True when every visible preview could be deleted after a fresh final. */
export function previewsDeletable(ref: LiveRef): boolean {
  return (
    canDelete(ref.adapter) &&
    visiblePreviews(ref.record).every((p) => p.part.platformMessageId !== "")
  );
}

/** A batch of `units` under the final's key. */
export function batchOf(units: readonly RenderedMessageUnit[], key: string): RenderedMessageBatch {
  return {
    units: units.map((u, index) => ({ ...u, index })),
    atomicity: "all_or_retry_remaining",
    idempotencyKey: key,
  };
}

/**
 * The final intent of a session key: the one under `key`, or — when an in-place final found its
 * preview gone and fell back — the one under `${key}:fresh` if that was delivered.
 *
 * @throws IdempotencyConflictError when that final went to another channel, account,
 *   conversation or relation than `base` (the key was reused for another message).
 */
export async function findFinal(
  store: LiveRef["env"]["deps"]["store"],
  key: string,
  base: ChannelMessage,
): Promise<DurableSendIntent | undefined> {
  const first = await store.getIntentByIdempotencyKey(key);
  if (first) assertSamePlace(first, base);
  if (!first || first.status === "sent") return first;
  return (await store.getIntentByIdempotencyKey(`${key}:fresh`)) ?? first;
}

/**
 * The `maxAgeMs` of a live final ([H25], C55; `delivery/expiry.ts`): the runtime's (or its
 * channel's) only when the session never showed a preview. A final whose preview is visible is
 * finalised whatever its age — an edit in place, or a fresh final over previews the user
 * already reads.
 */
function finalMaxAge(ref: LiveRef, operation: IntentOperation): { maxAgeMs?: number } {
  if (operation.kind !== "send" || ref.record.previews.length > 0) return {};
  const maxAgeMs = maxAgeFor(ref.env.deps, ref.base.channel, undefined);
  return maxAgeMs === undefined ? {} : { maxAgeMs };
}

/**
 * Enqueues the final and waits for its receipt (the same contract as `runtime.send`). A key
 * that was already delivered returns its receipt without sending. The intent is written before
 * anything waits: a pending final is already stored when `DeliveryPendingError` is thrown.
 *
 * @throws DeliveryFailedError · DeliveryCancelledError · DeliveryPendingError — as `runtime.send`.
 */
export async function deliverFinal(
  ref: LiveRef,
  p: {
    key: string;
    message: ChannelMessage;
    operation: IntentOperation;
    batch: RenderedMessageBatch;
    kept?: MessageReceipt | undefined;
    waitMs: number;
    /**
     * Epoch ms before which the final must not be attempted (a rate-limit wait). The intent is
     * written at once and waits in the queue, never in memory (DESIGN §3 "Waiting is durable").
     */
    notBefore?: number | undefined;
    /**
     * Runs after the intent is written (leased by this worker, so nobody else delivers it yet)
     * and before it is delivered: the session stops its preview stream here, so a call still in
     * flight never holds the only copy of the final and never lands after it. A receipt it
     * returns means the final is already visible (a preview call that landed meanwhile shows
     * it): the intent is committed with that receipt and nothing is sent.
     */
    beforeDeliver?: (() => Promise<MessageReceipt | undefined>) | undefined;
  },
): Promise<MessageReceipt> {
  const { deps, worker } = ref.env;
  const [result] = await deps.store.enqueueIntents([
    {
      idempotencyKey: p.key,
      message: p.message,
      operation: p.operation,
      batch: p.batch,
      ...(ref.turnId ? { turnId: ref.turnId } : {}),
      ...(p.notBefore !== undefined ? { nextAttemptAt: p.notBefore } : {}),
      ...finalMaxAge(ref, p.operation),
      claim: { owner: worker.owner, now: deps.clock(), leaseMs: deps.options.leaseMs },
    },
  ]);
  if (!result) throw new Error("store returned no enqueue result");
  let intent = result.intent;
  if (intent.status === "sent" && intent.receipt) return intent.receipt;
  failpoint("live.after_final_enqueue");
  if (result.created && p.kept) {
    const mine = intent.leaseOwner === worker.owner;
    try {
      intent = await deps.store.updateIntent(
        intent.id,
        { status: "pending", ...(mine ? { owner: worker.owner } : {}) },
        { partialReceipt: p.kept },
      );
    } catch (error) {
      // The worker took it first: it edits the kept previews too, which changes nothing.
      if (!(error instanceof IntentConflictError)) throw error;
    }
  }
  const shown = await p.beforeDeliver?.();
  if (shown && result.created && intent.leaseOwner === worker.owner && !p.kept) {
    await commitLeased(ref, intent.id, shown, worker.owner, p.key, p.message);
    return shown;
  }
  let settled: DurableSendIntent | undefined;
  const waitStarted = deps.clock();
  const deadline = waitStarted + p.waitMs;
  if (result.created && intent.leaseOwner === worker.owner) {
    // `waitMs` bounds the inline attempt too (as in `runtime.send`): past it, it goes on.
    settled = await within(worker.deliverLeased(intent), deadline, deps.clock, (err) =>
      deps.logger.error({ intentId: intent.id, err }, "inline final delivery failed"),
    );
  } else {
    worker.kick();
    // Held back (`notBefore`): the lease the kick sets off finds it not due yet.
    if (intent.status === "pending" && (intent.nextAttemptAt ?? 0) > deps.clock()) {
      worker.wakeAt(intent.nextAttemptAt as number);
    }
  }
  const final = await worker.waitFor(intent.id, Math.max(0, deadline - deps.clock()), settled);
  if (!final) throw new DeliveryFailedError(undefined, intent.id);
  if (final.status === "sent")
    return final.receipt ?? { platformMessageIds: [], parts: [], sentAt: final.updatedAt };
  if (final.status === "failed") throw new DeliveryFailedError(final.failure, final.id);
  if (final.status === "cancelled") throw new DeliveryCancelledError(final.id);
  if (final.status === "expired") throw new DeliveryExpiredError(final);
  throw new DeliveryPendingError(final, deps.clock() - waitStarted);
}

/**
 * Records messages that are already visible (kept previews, a finished native stream) as the
 * delivered final under `key`, without any platform call. A key already used keeps its receipt.
 */
export async function commitVisibleFinal(
  ref: LiveRef,
  key: string,
  receipt: MessageReceipt,
  message: ChannelMessage = ref.base,
): Promise<MessageReceipt> {
  const { store, clock, options, owner } = ref.env.deps;
  const [result] = await store.enqueueIntents([
    {
      idempotencyKey: key,
      message,
      // Its own ordering key, so the claim below always succeeds and no worker races us.
      orderingKey: JSON.stringify(["live-final", key]),
      batch: { units: [], atomicity: "all_or_retry_remaining", idempotencyKey: key },
      ...(ref.turnId ? { turnId: ref.turnId } : {}),
      claim: { owner, now: clock(), leaseMs: options.leaseMs },
    },
  ]);
  if (!result) throw new Error("store returned no enqueue result");
  if (!result.created || result.intent.leaseOwner !== owner) {
    return result.intent.receipt ?? receipt;
  }
  await commitLeased(ref, result.intent.id, receipt, owner, key, message);
  return receipt;
}

/**
 * Commits a pending intent this process leased as sent with `receipt`, without a platform
 * call (what it would deliver is already visible). Its ids are the session's previews (or
 * stream), which the live intent already holds in the outbound registry: the final adopts
 * them (`adoptedMessageIds`) — the same messages, not a second claim (DESIGN §12). Then the
 * adapter's `afterCommit` hook runs with `receipt` (under the final's `key`).
 */
async function commitLeased(
  ref: LiveRef,
  id: string,
  receipt: MessageReceipt,
  owner: string,
  key: string,
  message: ChannelMessage,
): Promise<void> {
  const { store } = ref.env.deps;
  await store.transitionIntents([
    { id, from: "pending", to: "sending", owner, patch: { attempt: 1 } },
  ]);
  await store.transitionIntents([
    {
      id,
      from: "sending",
      to: "committing",
      owner,
      patch: { receipt, adoptedMessageIds: receipt.platformMessageIds },
    },
  ]);
  await store.transitionIntents([
    { id, from: "committing", to: "sent", owner, patch: { lease: "release" } },
  ]);
  // The final is committed in place (no delivery attempt ran): the channel's post-commit hook.
  const ctx = { ...liveContext(ref, key, 0, message), intentId: id, unitIdempotencyKey: key };
  await runSendHook(ref.adapter, "afterCommit", ctx, receipt);
}
