/**
 * One delivery attempt of a leased `pending` intent (seed "Send context"; DESIGN §3–4):
 * render once → rate-limit tokens → write `sending` (before any I/O) → send the missing units,
 * saving each unit's receipt as it lands → `committing` with the receipt → `sent`. A failure is
 * classified and becomes a retry (`pending` + backoff), `unknown_after_send` or `failed`.
 *
 * @module
 */
import type { ChannelMessageAdapter, MessageSendContext } from "../adapter/types.ts";
import { failpoint } from "../failpoint.ts";
import type { RenderedMessageBatch, RenderedMessageUnit } from "../message/batch.ts";
import { type DeliveryFailure, decideRetry, RETRY_POLICY } from "../message/failure.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import { deliveredUnitIndexes, type MessageReceipt } from "../message/receipt.ts";
import { sleep } from "../sleep.ts";
import type { DeliveryDeps } from "./deps.ts";
import { keyTrusted, nextUnknownCheckAt, replayIsIdempotent, withFirstDispatch } from "./gate.ts";
import type { RateLimitSubject } from "./RateLimitScheduler.ts";
import { deliverUnits } from "./units.ts";

/** Abortable sleep, re-exported for the worker (the one copy is `../sleep.ts`). */
export { sleep };

/** The rate-limit subject of an intent's platform call. */
export function subjectOf(intent: DurableSendIntent, unit?: RenderedMessageUnit): RateLimitSubject {
  return {
    channel: intent.channel,
    accountId: intent.accountId,
    target: intent.message.target,
    route: `${intent.operation.kind}:${unit?.kind ?? "text"}`,
  };
}

/**
 * Waits (in memory, up to `maxInMemoryWaitMs`) for the rate-limit tokens of one call.
 * @returns 0 when the tokens were taken; otherwise the remaining wait in ms (nothing taken).
 */
export async function reserveTokens(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  subject: RateLimitSubject,
  signal: AbortSignal,
): Promise<number> {
  const scopes = adapter.capabilities.rateLimits ?? [];
  const deadline = deps.clock() + deps.options.maxInMemoryWaitMs;
  for (;;) {
    const now = deps.clock();
    const wait = deps.scheduler.reserve(scopes, subject, now);
    if (wait === 0) return 0;
    if (now + wait > deadline || signal.aborted) return Math.max(wait, 1);
    await sleep(wait, signal);
  }
}

/** Applies the runtime's `redact` option (when given) to a reason about to be stored. */
export function redactWith(deps: Pick<DeliveryDeps, "options">, text: string): string {
  return deps.options.redact ? deps.options.redact(text) : text;
}

/** Renders the intent's message through its adapter (once: the batch is then stored). */
export async function renderBatch(
  adapter: ChannelMessageAdapter,
  intent: DurableSendIntent,
): Promise<RenderedMessageBatch> {
  return adapter.render.render(intent.message, {
    idempotencyKey: intent.idempotencyKey,
    capabilities: adapter.capabilities,
  });
}

function sendContext(
  deps: DeliveryDeps,
  intent: DurableSendIntent,
  attempt: number,
  signal: AbortSignal,
): Omit<MessageSendContext, "unitIdempotencyKey"> {
  const ctx: Omit<MessageSendContext, "unitIdempotencyKey"> = {
    intentId: intent.id,
    channel: intent.channel,
    message: intent.message,
    attempt,
    idempotencyKey: intent.idempotencyKey,
    signal,
    log: deps.logger.child({ intentId: intent.id, channel: intent.channel }),
  };
  if (intent.accountId !== undefined) ctx.accountId = intent.accountId;
  return ctx;
}

/**
 * Runs one attempt of a `pending` intent leased by `deps.owner`.
 *
 * @returns the intent as stored after the attempt.
 * @throws IntentConflictError when the lease was lost mid-attempt (another worker took over).
 */
export async function runAttempt(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  leased: DurableSendIntent,
  signal: AbortSignal,
): Promise<DurableSendIntent> {
  const { store, owner } = deps;
  const log = deps.logger.child({ intentId: leased.id, channel: leased.channel });
  let batch = leased.batch;
  if (!batch) {
    try {
      batch = await renderBatch(adapter, leased);
    } catch (error) {
      const failure: DeliveryFailure = {
        kind: "invalid_payload",
        evidence: "not_dispatched",
        message: redactWith(
          deps,
          `render failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
        at: deps.clock(),
      };
      log.error({ status: "failed", failureKind: failure.kind }, failure.message);
      const [failed] = await store.transitionIntents([
        { id: leased.id, from: "pending", to: "failed", owner, patch: { failure } },
      ]);
      return failed as DurableSendIntent;
    }
  }

  if (staleKeyReplay(adapter, leased, deps.clock())) {
    return backToUnknown(deps, adapter, leased, batch);
  }

  // Rate limits before `sending`: a long wait is not an attempt. (The token itself is taken
  // right before the platform call, below.)
  const scopes = adapter.capabilities.rateLimits ?? [];
  const firstWait = deps.scheduler.peek(scopes, subjectOf(leased, batch.units[0]), deps.clock());
  if (firstWait > deps.options.maxInMemoryWaitMs) {
    return store.updateIntent(
      leased.id,
      { status: "pending", owner },
      { nextAttemptAt: deps.clock() + firstWait, lease: "release" },
    );
  }

  const attempt = leased.attempt + 1;
  // The first dispatch time of each unit is written before its platform call (idempotency
  // windows count from it): the first missing unit's with `sending`, the next one's with each
  // landed part.
  const nextUnit = (receipt: MessageReceipt | undefined) => {
    const done = deliveredUnitIndexes(receipt);
    return batch.units.find((u) => !done.has(u.index))?.index;
  };
  let dispatched = leased.firstDispatchAt;
  const firstStamp =
    leased.operation.kind === "delete"
      ? undefined
      : withFirstDispatch(dispatched, nextUnit(leased.partialReceipt), deps.clock());
  if (firstStamp) dispatched = firstStamp;
  const [sending] = await store.transitionIntents([
    {
      id: leased.id,
      from: "pending",
      to: "sending",
      owner,
      patch: {
        attempt,
        batch,
        nextAttemptAt: null,
        ...(firstStamp ? { firstDispatchAt: firstStamp } : {}),
      },
    },
  ]);
  log.info({ status: "sending", attempt }, "intent sending");
  failpoint("send.after_sending");

  const outcome = await deliverUnits({
    adapter,
    ctx: sendContext(deps, sending as DurableSendIntent, attempt, signal),
    batch,
    operation: leased.operation,
    previous: leased.partialReceipt,
    clock: deps.clock,
    redact: deps.options.redact,
    reserve: (unit) => reserveTokens(deps, adapter, subjectOf(leased, unit), signal),
    onPart: async (receipt, remaining) => {
      failpoint("send.after_platform_accept");
      if (remaining > 0) {
        const stamp = withFirstDispatch(dispatched, nextUnit(receipt), deps.clock());
        if (stamp) dispatched = stamp;
        await store.updateIntent(
          leased.id,
          { status: "sending", owner },
          { partialReceipt: receipt, ...(stamp ? { firstDispatchAt: stamp } : {}) },
        );
      }
    },
  });

  if (outcome.status === "done") {
    await store.transitionIntents([
      {
        id: leased.id,
        from: "sending",
        to: "committing",
        owner,
        patch: { receipt: outcome.receipt },
      },
    ]);
    const patch = outcome.skipped.length
      ? {
          partialReceipt: null,
          failure: {
            ...(outcome.skipped.at(-1) as DeliveryFailure),
            message: `skipped ${outcome.skipped.length} optional part(s): ${outcome.skipped.map((f) => f.message).join("; ")}`,
          },
        }
      : { partialReceipt: null, failure: null };
    const [sent] = await store.transitionIntents([
      { id: leased.id, from: "committing", to: "sent", owner, patch },
    ]);
    failpoint("send.after_commit");
    log.info(
      { status: "sent", attempt, platformMessageIds: outcome.receipt.platformMessageIds },
      "intent sent",
    );
    return sent as DurableSendIntent;
  }

  if (outcome.status === "deferred") {
    // A long rate-limit wait between units: back to the queue without burning the attempt.
    const [deferred] = await store.transitionIntents([
      {
        id: leased.id,
        from: "sending",
        to: "pending",
        owner,
        patch: {
          attempt: leased.attempt,
          nextAttemptAt: deps.clock() + outcome.waitMs,
          partialReceipt: outcome.receipt ?? null,
          lease: "release",
        },
      },
    ]);
    return deferred as DurableSendIntent;
  }

  // The platform answered with an error (or timed out); nothing about it is stored yet.
  failpoint("send.after_failed_call");
  return failAttempt(
    deps,
    { ...(sending as DurableSendIntent), ...(dispatched ? { firstDispatchAt: dispatched } : {}) },
    attempt,
    outcome.failure,
    outcome.receipt,
    adapter,
  );
}

/**
 * True when a scheduled retry (after a `not_dispatched` failure) would replay a unit that may
 * already be on the platform with a native key whose window has passed since (say a
 * retry-after longer than the window): sending it could create a second copy. An operator's
 * `herald queue retry` of a held intent (its failure is `maybe_sent`) is sent as asked.
 */
function staleKeyReplay(
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
async function backToUnknown(
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
 * platform's key for it is still trusted.
 */
export async function failAttempt(
  deps: DeliveryDeps,
  intent: DurableSendIntent,
  attempt: number,
  classified: DeliveryFailure,
  partial: DurableSendIntent["partialReceipt"],
  adapter?: ChannelMessageAdapter,
): Promise<DurableSendIntent> {
  const { store, owner } = deps;
  const log = deps.logger.child({ intentId: intent.id, channel: intent.channel });
  const now = deps.clock();
  let failure = withDoubt(intent, classified, partial, now);
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
  if (failure.kind === "rate_limit" && failure.retryAfterMs !== undefined) {
    deps.scheduler.pause(
      failure.rateLimitScope ?? "chat",
      subjectOf(intent),
      now + failure.retryAfterMs,
    );
  }
  const decision = decideRetry(failure, attempt, deps.options.backoff, deps.random);
  const base = { id: intent.id, from: "sending" as const, owner };
  const partialReceipt = partial ?? null;
  let next: DurableSendIntent | undefined;
  if (decision.action === "retry") {
    [next] = await store.transitionIntents([
      {
        ...base,
        to: "pending",
        patch: { failure, partialReceipt, nextAttemptAt: now + decision.delayMs, lease: "release" },
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
