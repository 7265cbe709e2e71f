/**
 * What a failed attempt leads to (DESIGN §3 "Replay gate"; seed "Failure classes"): a retry
 * after backoff, `unknown_after_send` (due after the replay gate and, when it will be
 * reconciled, the settle delay) or `failed` with the reason kept. A unit whose earlier attempt
 * may have landed stays in doubt, so a retry never replays it with a key the platform forgot.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import { failpoint } from "../failpoint.ts";
import type { RenderedMessageBatch } from "../message/batch.ts";
import {
  backoffDelayMs,
  type DeliveryFailure,
  decideRetry,
  RETRY_POLICY,
} from "../message/failure.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import type { RateLimitCall } from "../message/rateLimit.ts";
import { deliveredUnitIndexes, type MessageReceipt } from "../message/receipt.ts";
import type { DeliveryDeps } from "./deps.ts";
import { dueBeforeExpiry } from "./expiry.ts";
import { keyTrusted, nextUnknownCheckAt, replayIsIdempotent } from "./gate.ts";
import { callOf, pauseOnRateLimit } from "./ratelimit/intent.ts";

/**
 * True when a scheduled retry (after a `not_dispatched` failure) would replay a unit that may
 * already be on the platform with a native key whose window has passed since (say a
 * retry-after longer than the window): sending it could create a second copy. An operator's
 * `herald queue retry` of a held intent (its failure is `maybe_sent`) is sent as asked.
 */
export function staleKeyReplay(
  adapter: ChannelMessageAdapter,
  intent: DurableSendIntent,
  now: number,
): boolean {
  return (
    intent.failure?.inDoubtSince !== undefined &&
    intent.failure.evidence === "not_dispatched" &&
    adapter.capabilities.delivery?.idempotencyKey === true &&
    !replayIsIdempotent(intent) &&
    !keyTrusted(adapter, intent, now)
  );
}

/** Moves a leased `pending` intent to `unknown_after_send` without any platform call. */
export async function backToUnknown(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  leased: DurableSendIntent,
  batch: RenderedMessageBatch,
): Promise<DurableSendIntent> {
  const { store, owner } = deps;
  const now = deps.clock();
  const last = leased.failure as DeliveryFailure;
  const failure: DeliveryFailure = {
    ...last,
    evidence: "maybe_sent",
    at: now,
    message: `${last.message} (an earlier attempt of this unit may have been delivered, and the platform's idempotency window has passed)`,
  };
  await store.transitionIntents([
    { id: leased.id, from: "pending", to: "sending", owner, patch: { batch } },
  ]);
  const [unknown] = await store.transitionIntents([
    {
      id: leased.id,
      from: "sending",
      to: "unknown_after_send",
      owner,
      patch: {
        failure,
        nextAttemptAt: nextUnknownCheckAt(deps, adapter, leased, failure, now),
        lease: "release",
      },
    },
  ]);
  deps.logger.warn(
    { intentId: leased.id, channel: leased.channel, status: "unknown_after_send" },
    failure.message,
  );
  return unknown as DurableSendIntent;
}

/**
 * Carries the doubt of an earlier `maybe_sent` outcome of the same unit into a new failure: a
 * unit that may already be on the platform stays in doubt until a part lands or a lookup settles
 * it. @returns `failure`, with `inDoubtSince` when the unit is (still) in doubt.
 */
function withDoubt(
  intent: DurableSendIntent,
  failure: DeliveryFailure,
  partial: MessageReceipt | undefined,
  now: number,
): DeliveryFailure {
  const before = intent.failure?.inDoubtSince;
  const advanced =
    deliveredUnitIndexes(partial).size > deliveredUnitIndexes(intent.partialReceipt).size;
  const earlier = before !== undefined && !advanced ? before : undefined;
  if (failure.evidence === "maybe_sent") return { ...failure, inDoubtSince: earlier ?? now };
  return earlier === undefined ? failure : { ...failure, inDoubtSince: earlier };
}

/**
 * Applies the retry policy to a failed attempt of an intent in `sending`: a `maybe_sent` outcome
 * goes to `unknown_after_send`, due after the replay gate (and the settle delay when it will be
 * reconciled); a `not_dispatched` retry of a unit still in doubt goes there too unless the
 * platform's key for it is still trusted. A `rate_limit` failure also pauses its scope on `call`
 * (the call that was answered 429) — see `pauseOnRateLimit`.
 */
export async function failAttempt(
  deps: DeliveryDeps,
  intent: DurableSendIntent,
  attempt: number,
  classified: DeliveryFailure,
  partial: DurableSendIntent["partialReceipt"],
  adapter?: ChannelMessageAdapter,
  call: RateLimitCall = callOf(adapter, intent),
): Promise<DurableSendIntent> {
  const { store, owner } = deps;
  const log = deps.logger.child({ intentId: intent.id, channel: intent.channel });
  const now = deps.clock();
  // The failure keeps the number of the attempt it ended (a later attempt, after an operator's
  // retry, does not renumber it while it is still the stored one).
  let failure: DeliveryFailure = { ...withDoubt(intent, classified, partial, now), attempt };
  const after = { ...intent, attempt, ...(partial ? { partialReceipt: partial } : {}) };
  if (
    failure.evidence === "not_dispatched" &&
    failure.inDoubtSince !== undefined &&
    RETRY_POLICY[failure.kind].retry &&
    !(adapter && keyTrusted(adapter, after, now))
  ) {
    // The retry would replay a unit the platform may have, without a trusted key.
    failure = {
      ...failure,
      evidence: "maybe_sent",
      message: `${failure.message} (an earlier attempt of this unit may have been delivered)`,
    };
  }
  const decision = decideRetry(failure, attempt, deps.options.backoff, deps.random);
  pauseOnRateLimit(
    deps,
    failure,
    call,
    decision.action === "retry"
      ? decision.delayMs
      : backoffDelayMs(attempt, deps.options.backoff, deps.random),
  );
  const base = { id: intent.id, from: "sending" as const, owner };
  const partialReceipt = partial ?? null;
  let next: DurableSendIntent | undefined;
  if (decision.action === "retry") {
    [next] = await store.transitionIntents([
      {
        ...base,
        to: "pending",
        patch: {
          failure,
          partialReceipt,
          // Due at the intent's expiry when that comes first: it then ends `expired` on time.
          nextAttemptAt: dueBeforeExpiry(
            { expiresAt: intent.expiresAt, liveState: intent.liveState, partialReceipt: partial },
            now + decision.delayMs,
          ),
          lease: "release",
        },
      },
    ]);
    log.warn(
      {
        status: "pending",
        attempt,
        failureKind: failure.kind,
        evidence: failure.evidence,
        retryInMs: decision.delayMs,
      },
      "send failed; retry scheduled",
    );
    failpoint("delivery.after_retry_scheduled");
  } else if (decision.action === "unknown_after_send") {
    [next] = await store.transitionIntents([
      {
        ...base,
        to: "unknown_after_send",
        patch: {
          failure,
          partialReceipt,
          nextAttemptAt: nextUnknownCheckAt(deps, adapter, after, failure, now),
          lease: "release",
        },
      },
    ]);
    log.warn(
      {
        status: "unknown_after_send",
        attempt,
        failureKind: failure.kind,
        evidence: failure.evidence,
      },
      "send outcome unknown; reconciling before any replay",
    );
  } else {
    const kept = { ...failure, message: `${decision.reason} — ${failure.message}` };
    [next] = await store.transitionIntents([
      { ...base, to: "failed", patch: { failure: kept, partialReceipt } },
    ]);
    log.error(
      { status: "failed", attempt, failureKind: failure.kind, platformCode: failure.platformCode },
      kept.message,
    );
  }
  return next as DurableSendIntent;
}
