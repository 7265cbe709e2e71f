/**
 * The replay gate (DESIGN §3 "Replay gate"; seed "Failure classes", "Recovery"): when an
 * `unknown_after_send` intent may be looked at again, whether its native idempotency key is still
 * trusted, and how long reconciliation waits before its first lookup.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { ReconcileDeclaration } from "../message/capabilities.ts";
import { type DeliveryFailure, decideReplay } from "../message/failure.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import { deliveredUnitIndexes } from "../message/receipt.ts";
import type { DeliveryDeps } from "./deps.ts";

/** `capabilities.delivery.requestTimeoutMs` when an adapter does not declare it, in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The reconciler declaration of an adapter (`best_effort` unless it says otherwise). */
export function reconcileDeclaration(adapter: ChannelMessageAdapter): ReconcileDeclaration {
  return adapter.capabilities.delivery?.reconcile ?? { notSent: "best_effort" };
}

/**
 * How long after a failed attempt reconciliation waits before its first lookup, in ms: the
 * adapter's request timeout (a timed-out request may still be stored until then) plus the
 * declared visibility lag of its lookup.
 */
export function settleDelayMs(adapter: ChannelMessageAdapter): number {
  const delivery = adapter.capabilities.delivery ?? {};
  const lag = reconcileDeclaration(adapter).visibilityLagMs ?? 0;
  return Math.max(0, delivery.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) + Math.max(0, lag);
}

/** Indexes of the units of `intent` that have no receipt part yet (all of them without a batch). */
function missingUnits(intent: DurableSendIntent): number[] | undefined {
  if (!intent.batch) return undefined;
  const done = deliveredUnitIndexes(intent.partialReceipt);
  return intent.batch.units.filter((u) => !done.has(u.index)).map((u) => u.index);
}

/**
 * True when a replay of `intent` with the same unit keys is deduplicated by the platform: the
 * adapter declares native idempotency and every missing unit that was already dispatched is
 * still inside `idempotencyWindowMs` of its `firstDispatchAt`. A unit dispatched before
 * `firstDispatchAt` existed (an older row) counts from the intent's creation.
 */
export function keyTrusted(
  adapter: ChannelMessageAdapter,
  intent: DurableSendIntent,
  now: number,
): boolean {
  const delivery = adapter.capabilities.delivery ?? {};
  if (!delivery.idempotencyKey) return false;
  const windowMs = delivery.idempotencyWindowMs;
  if (windowMs === undefined) return true;
  const missing = missingUnits(intent);
  const dispatched = intent.firstDispatchAt ?? {};
  const starts =
    missing === undefined
      ? Object.values(dispatched)
      : missing.map((index) => dispatched[String(index)]).filter((t) => t !== undefined);
  if (starts.length === 0 && intent.attempt > 0 && !intent.firstDispatchAt) {
    starts.push(intent.createdAt);
  }
  return starts.every((t) => now - t < windowMs);
}

/**
 * True when replaying cannot duplicate anything: a delete, or an edit whose first missing unit
 * edits an existing message (a unit without a target would be a new message: not safe). An
 * edit answered "not found" that fell back to a fresh send is the one exception; channels
 * without native idempotency may then show that unit twice (documented at-least-once).
 */
export function replayIsIdempotent(intent: DurableSendIntent): boolean {
  const op = intent.operation;
  // A delete, and a reaction: every platform answers a repeat as done (never a toggle).
  if (op.kind === "delete" || op.kind === "reaction") return true;
  if (op.kind !== "edit" || !intent.batch) return false;
  const done = deliveredUnitIndexes(intent.partialReceipt);
  const next = intent.batch.units.find((u) => !done.has(u.index));
  if (!next) return true;
  return (
    (op.receipt.parts.find((p) => p.index === next.index) ?? op.receipt.parts[next.index]) !==
    undefined
  );
}

/** Which way {@link nextUnknownCheckAt} expects the intent to be resolved. */
function expectsLookup(adapter: ChannelMessageAdapter, intent: DurableSendIntent, now: number) {
  return (
    adapter.send.reconcileUnknownSend !== undefined &&
    intent.operation.kind === "send" &&
    !keyTrusted(adapter, intent, now)
  );
}

/**
 * When an intent that just went `unknown_after_send` with `failure` is next due (epoch ms): not
 * before the replay gate's delay for its attempt count (backoff with jitter, or the platform's
 * retry-after), and — when it will be reconciled — not before the settle delay. Recovery and
 * failed attempts both schedule with it, so every replay path waits the same way.
 */
export function nextUnknownCheckAt(
  deps: Pick<DeliveryDeps, "options" | "random">,
  adapter: ChannelMessageAdapter | undefined,
  intent: DurableSendIntent,
  failure: DeliveryFailure,
  now: number,
): number {
  const since = failure.at ?? now;
  const replays =
    adapter === undefined ||
    replayIsIdempotent(intent) ||
    keyTrusted(adapter, intent, now) ||
    adapter.send.reconcileUnknownSend !== undefined ||
    adapter.capabilities.delivery?.unknownSendPolicy === "at_least_once";
  if (!replays) return now; // held for an operator at once: nothing is replayed
  const decision = decideReplay(
    failure,
    Math.max(1, intent.attempt),
    deps.options.backoff,
    deps.random,
  );
  const replayDelay = decision.action === "retry" ? decision.delayMs : 0;
  const settle = adapter && expectsLookup(adapter, intent, now) ? settleDelayMs(adapter) : 0;
  return since + Math.max(replayDelay, settle);
}

/**
 * Merges the dispatch time of unit `index` into `firstDispatchAt` (an existing entry wins).
 * @returns the map to store, or undefined when nothing changes.
 */
export function withFirstDispatch(
  current: DurableSendIntent["firstDispatchAt"],
  index: number | undefined,
  now: number,
): Record<string, number> | undefined {
  if (index === undefined || current?.[String(index)] !== undefined) return undefined;
  return { ...current, [String(index)]: now };
}
