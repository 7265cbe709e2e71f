/**
 * One delivery attempt of a leased `pending` intent (seed "Send context"; DESIGN §3–4):
 * render once → take the first call's rate-limit tokens (waiting in memory up to
 * `maxInMemoryWaitMs`, else back to the queue) → write `sending` (the platform call starts now) →
 * send the missing units, saving each unit's receipt as it lands (a later unit that must wait for
 * its tokens waits as `pending`, lease kept: `sending` is only ever on the store while a platform
 * call is about to start or in flight) → `committing` with the receipt → `sent`. A failure is
 * classified and becomes a retry (`pending` + backoff), `unknown_after_send` or `failed`.
 *
 * @module
 */
import { runSendHook } from "../adapter/hooks.ts";
import type { ChannelMessageAdapter, MessageSendContext } from "../adapter/types.ts";
import { failpoint } from "../failpoint.ts";
import type { RenderedMessageBatch } from "../message/batch.ts";
import type { DeliveryFailure } from "../message/failure.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import type { RateLimitCall } from "../message/rateLimit.ts";
import { deliveredUnitIndexes, type MessageReceipt } from "../message/receipt.ts";
import { redactUrls } from "../redact.ts";
import { sleep } from "../sleep.ts";
import type { DeliveryDeps } from "./deps.ts";
import { isExpired } from "./expiry.ts";
import { backToUnknown, failAttempt, staleKeyReplay } from "./failAttempt.ts";
import { withFirstDispatch } from "./gate.ts";
import { MAX_LEAD_MS, writeLeadOf } from "./lead.ts";
import { callOf } from "./ratelimit/intent.ts";
import type { SharedTaken } from "./ratelimit/waiters.ts";
import { holdReceiptConflict, isReceiptConflict } from "./receiptConflict.ts";
import { deliverUnits, FOLLOW_UP_WAIT_MS, hookTimeoutOf } from "./units.ts";

/** Abortable sleep, re-exported for the worker (the one copy is `../sleep.ts`). */
export { sleep };

/**
 * Waits in the scheduler's line (in memory, up to `maxInMemoryWaitMs`) for the rate-limit
 * tokens of one call; the line wakes exactly when the tokens come back (no sleep per attempt).
 * @param taken - told the epoch ms the tokens were taken at (see `RateLimitScheduler.restamp`;
 *   with `leadMs`, up to that far ahead: the call must not start before it), and the tokens
 *   and their stamp when the buckets are shared in the store.
 * @param leadMs - take tokens coming back within this many ms (the writes before the call
 *   overlap the wait; `RateLimitScheduler.acquire`); absent: none, also for shared buckets.
 * @param maxWaitMs - the longest wait held in memory (ms). @defaultValue `maxInMemoryWaitMs`
 * @returns 0 when the tokens were taken; otherwise the remaining wait in ms (nothing taken).
 */
export async function reserveTokens(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  call: RateLimitCall,
  signal: AbortSignal,
  taken?: (at: number, shared?: SharedTaken) => void,
  leadMs?: number,
  maxWaitMs = deps.options.maxInMemoryWaitMs,
): Promise<number> {
  const got = await deps.scheduler.acquire(adapter.capabilities.rateLimits ?? [], call, {
    maxWaitMs,
    signal,
    leadMs,
  });
  if (got.takenAt !== undefined) taken?.(got.takenAt, got.shared);
  return got.waitMs;
}

/**
 * Redacts a reason about to be stored from an error nobody vetted (a render or reconcile
 * error): every URL's path and query dropped (`redactUrls`, as `classify` does), then the
 * runtime's `redact` option when given.
 */
export function redactWith(deps: Pick<DeliveryDeps, "options">, text: string): string {
  const urlsDropped = redactUrls(text);
  return deps.options.redact ? deps.options.redact(urlsDropped) : urlsDropped;
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
  current?: () => RateLimitCall | undefined,
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
  if (current) {
    ctx.reportRateLimit = (feedback) => {
      const call = current();
      if (call) deps.scheduler.observe(call, feedback, deps.clock());
    };
  }
  return ctx;
}

/**
 * The context of an `afterCommit` hook: the intent's send context, keyed by the intent's own
 * idempotency key (the hook is about the whole message, not one unit), with the committed
 * receipt as `previousReceipt`.
 */
export function committedContext(
  deps: DeliveryDeps,
  intent: DurableSendIntent,
  attempt: number,
  signal: AbortSignal,
  receipt: MessageReceipt,
): MessageSendContext {
  return {
    ...sendContext(deps, intent, attempt, signal),
    unitIdempotencyKey: intent.idempotencyKey,
    previousReceipt: receipt,
  };
}

/**
 * Runs one attempt of a `pending` intent leased by `deps.owner`.
 *
 * @param callsDone - called once the attempt's platform calls are over, before its outcome is
 *   written (see {@link dispatchSending}).
 * @returns the intent as stored after the attempt.
 * @throws IntentConflictError when the lease was lost mid-attempt (another worker took over).
 */
export async function runAttempt(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  leased: DurableSendIntent,
  signal: AbortSignal,
  callsDone?: () => void,
): Promise<DurableSendIntent> {
  const { store, owner } = deps;
  const log = deps.logger.child({ intentId: leased.id, channel: leased.channel });
  if (isExpired(leased, deps.clock())) {
    // Too old to send ([H25], C55; `expiry.ts`): ends `expired`, no platform call.
    log.warn(
      { status: "expired", expiresAt: leased.expiresAt, createdAt: leased.createdAt },
      "intent older than its maxAgeMs: expired, not sent",
    );
    const [expired] = await store.transitionIntents([
      { id: leased.id, from: "pending", to: "expired", owner, patch: { lease: "release" } },
    ]);
    return expired as DurableSendIntent;
  }
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

  // `sending` means "the platform call is about to start" (a crash after it may leave the
  // message on the platform): the first call's rate-limit tokens are taken, and any wait for
  // them is over, before `sending` is written. A wait too long to hold in memory is not an
  // attempt: the intent goes back to the queue (`nextAttemptAt`) holding no tokens.
  const firstCall = firstCallOf(adapter, leased, batch);
  let takenAt = 0;
  let firstShared: SharedTaken | undefined;
  if (firstCall) {
    // Tokens back within about the time the `sending` write takes are taken now, as of when
    // they come back: the write overlaps the wait, and the call waits out what is left of it.
    const lead = writeLeadOf(deps).ms;
    const wait = await reserveTokens(
      deps,
      adapter,
      firstCall,
      signal,
      (at, shared) => {
        takenAt = at;
        firstShared = shared;
      },
      lead,
    );
    if (wait > 0) {
      return store.updateIntent(
        leased.id,
        { status: "pending", owner },
        { nextAttemptAt: deps.clock() + wait, lease: "release" },
      );
    }
  }

  const attempt = leased.attempt + 1;
  // The first dispatch time of each unit is written before its platform call (idempotency
  // windows count from it): the first missing unit's with `sending`, the next one's with each
  // landed part.
  const firstStamp = firstDispatchStamp(leased, batch, deps.clock());
  const writeStart = deps.clock();
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
  writeLeadOf(deps).observe(deps.clock() - writeStart);
  log.info({ status: "sending", attempt }, "intent sending");
  failpoint("send.after_sending");
  return dispatchSending(
    deps,
    adapter,
    {
      intent: sending as DurableSendIntent,
      batch,
      ...(firstCall ? { firstCall: { call: firstCall, takenAt, shared: firstShared } } : {}),
    },
    signal,
    callsDone,
  );
}

/**
 * An attempt whose `sending` row is committed: the intent as stored (its `attempt` already
 * counts this attempt), its rendered batch, and the first call's rate-limit tokens, taken
 * before `sending` was written.
 */
export type SendingAttempt = {
  intent: DurableSendIntent;
  batch: RenderedMessageBatch;
  /**
   * The first platform call's tokens: `takenAt` (epoch ms; the call starts no earlier) and the
   * tokens with their stamp when the buckets are shared in the store. Absent when the attempt
   * makes no call.
   */
  firstCall?: { call: RateLimitCall; takenAt: number; shared?: SharedTaken | undefined };
};

/**
 * The platform half of an attempt, from a committed `sending` row on: send the missing units,
 * then `committing` + `sent` in one transaction, or a retry, `unknown_after_send` or `failed`.
 * Shared by {@link runAttempt} and the folded first attempt of `runtime.send` (`fold.ts`).
 *
 * @param callsDone - called once, when the last platform call of the attempt has answered
 *   and before the outcome is written: the delivery worker hands the attempt's slot on there,
 *   so the next attempt's `sending` write joins the same group commit as this outcome.
 * @returns the intent as stored after the attempt.
 * @throws IntentConflictError when the lease was lost mid-attempt.
 */
export async function dispatchSending(
  deps: DeliveryDeps,
  adapter: ChannelMessageAdapter,
  started: SendingAttempt,
  signal: AbortSignal,
  callsDone?: () => void,
): Promise<DurableSendIntent> {
  const { store, owner } = deps;
  const { intent: sending, batch } = started;
  const leased = sending; // id, operation, message and partial receipt are unchanged by `sending`
  const attempt = sending.attempt;
  const log = deps.logger.child({ intentId: leased.id, channel: leased.channel });
  const nextUnit = (receipt: MessageReceipt | undefined) => {
    const done = deliveredUnitIndexes(receipt);
    return batch.units.find((u) => !done.has(u.index))?.index;
  };
  let dispatched = sending.firstDispatchAt;
  const firstCall = started.firstCall?.call;
  const takenAt = started.firstCall?.takenAt ?? 0;
  const firstShared = started.firstCall?.shared;
  let reservedFirst = firstCall !== undefined;

  // The same rule as live calls: a 429 answered to any call of this route or chat (a preview
  // too) while this one wrote `sending` holds it back — the intent goes back to the queue.
  const pausedNow = (call: RateLimitCall) => deps.scheduler.pausedMs(call, deps.clock());
  let current: RateLimitCall | undefined; // the call the last tokens were taken for
  let status = "sending" as "sending" | "pending"; // `pending` while waiting between parts
  let startedAt = 0; // when that call started (its tokens' stamp)
  let shared: SharedTaken | undefined; // store-kept tokens
  // The parts landed so far, and whether the store has them (`onPart` saves all but the last).
  let landed = leased.partialReceipt;
  let landedSaved = true;
  let over = false;
  const callsOver = () => {
    if (!over) callsDone?.();
    over = true;
  };
  try {
    const scopes = adapter.capabilities.rateLimits ?? [];
    const outcome = await deliverUnits({
      adapter,
      ctx: sendContext(deps, sending, attempt, signal, () => current),
      batch,
      operation: leased.operation,
      previous: leased.partialReceipt,
      clock: deps.clock,
      redact: deps.options.redact,
      hookTimeoutMs: hookTimeoutOf(deps.options.leaseMs),
      reserve: async (unit, _index, as) => {
        // The first call's tokens were taken before `sending`.
        if (reservedFirst && firstCall && as === undefined) {
          reservedFirst = false;
          current = firstCall;
          // Taken with a lead: the tokens come back at `takenAt`; the call starts no earlier —
          // also when the worker is being stopped (`signal`): after `sending` the call goes out
          // either way, and the rest of a lead is short (each sleep ≤ MAX_LEAD_MS).
          for (let i = 0; i < 5 && deps.clock() < takenAt; i++) {
            await sleep(Math.min(takenAt - deps.clock(), MAX_LEAD_MS));
          }
          // ... and count from now, when the call starts, not from the reservation.
          startedAt = Math.max(deps.clock(), takenAt);
          deps.scheduler.restamp(scopes, firstCall, takenAt, startedAt);
          shared = firstShared;
          return pausedNow(firstCall);
        }
        current = callOf(adapter, leased, unit, as);
        const taken = (at: number, tokens?: SharedTaken) => {
          startedAt = at;
          shared = tokens;
        };
        const now = await deps.scheduler.tryAcquire(scopes, current);
        if (now.takenAt !== undefined) {
          taken(now.takenAt, now.shared);
          return 0;
        }
        // A wait between parts: `sending` would claim a platform call is about to start, and a
        // crash in the wait would hold the message as maybe sent. Back to `pending` for the wait
        // (lease kept, landed parts saved), `sending` again once the tokens are taken. A follow-up
        // call (the leftover deletes) can come after the last part, which `onPart` does not save:
        // saved now, else a crash in the wait would repeat that part (a fresh send: a duplicate).
        await store.transitionIntents([
          {
            id: leased.id,
            from: "sending",
            to: "pending",
            owner,
            patch: landedSaved ? {} : { partialReceipt: landed ?? null },
          },
        ]);
        landedSaved = true;
        status = "pending";
        const maxWaitMs = as
          ? Math.max(deps.options.maxInMemoryWaitMs, FOLLOW_UP_WAIT_MS)
          : deps.options.maxInMemoryWaitMs;
        const wait = await reserveTokens(
          deps,
          adapter,
          current,
          signal,
          taken,
          undefined,
          maxWaitMs,
        );
        if (wait > 0) return wait;
        await store.transitionIntents([
          { id: leased.id, from: "pending", to: "sending", owner, patch: {} },
        ]);
        status = "sending";
        return pausedNow(current);
      },
      answered: () => {
        if (current) deps.scheduler.settle(scopes, current, startedAt, deps.clock(), shared);
      },
      onPart: async (receipt, remaining) => {
        failpoint("send.after_platform_accept");
        landed = receipt;
        landedSaved = remaining > 0;
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
    callsOver();

    if (outcome.status === "done") {
      const patch = outcome.skipped.length
        ? {
            partialReceipt: null,
            failure: {
              ...(outcome.skipped.at(-1) as DeliveryFailure),
              message: `skipped ${outcome.skipped.length} optional part(s): ${outcome.skipped.map((f) => f.message).join("; ")}`,
            },
          }
        : { partialReceipt: null, failure: null };
      // `committing` (the raw receipt) and `sent` (the registry rows) in one transaction: one
      // commit instead of two on the path of every message. A crash can no longer stop between
      // them; recovery still commits a `committing` row left by older versions or by reconcile.
      // A leftover delete that gave up its wait (a stop, a wait past `FOLLOW_UP_WAIT_MS`) left
      // the intent `pending`: the edit landed all the same.
      const resume =
        status === "pending"
          ? [{ id: leased.id, from: "pending", to: "sending", owner, patch: {} } as const]
          : [];
      const sent = (
        await store.transitionIntents([
          ...resume,
          {
            id: leased.id,
            from: "sending",
            to: "committing",
            owner,
            patch: { receipt: outcome.receipt },
          },
          { id: leased.id, from: "committing", to: "sent", owner, patch },
        ])
      ).at(-1);
      failpoint("send.after_commit");
      log.info(
        { status: "sent", attempt, platformMessageIds: outcome.receipt.platformMessageIds },
        "intent sent",
      );
      if (leased.operation.kind !== "delete") {
        await runSendHook(
          adapter,
          "afterCommit",
          committedContext(deps, sending, attempt, signal, outcome.receipt),
          outcome.receipt,
          hookTimeoutOf(deps.options.leaseMs),
        );
      }
      return sent as DurableSendIntent;
    }

    if (outcome.status === "deferred") {
      // A long rate-limit wait between units: back to the queue without burning the attempt.
      const patch = {
        attempt: attempt - 1,
        nextAttemptAt: deps.clock() + outcome.waitMs,
        partialReceipt: outcome.receipt ?? null,
        lease: "release" as const,
      };
      const deferred =
        status === "pending"
          ? await store.updateIntent(leased.id, { status: "pending", owner }, patch)
          : (
              await store.transitionIntents([
                { id: leased.id, from: "sending", to: "pending", owner, patch },
              ])
            )[0];
      return deferred as DurableSendIntent;
    }

    // The platform answered with an error (or timed out); nothing about it is stored yet.
    failpoint("send.after_failed_call");
    return failAttempt(
      deps,
      { ...sending, ...(dispatched ? { firstDispatchAt: dispatched } : {}) },
      attempt,
      outcome.failure,
      outcome.receipt,
      adapter,
      current,
    );
  } catch (error) {
    // The platform answered a unit with a message id another unit holds (CASES C40): the store
    // wrote nothing; the intent is held, never `sent` with that id.
    if (!isReceiptConflict(error)) throw error;
    callsOver();
    return holdReceiptConflict(deps, leased, status, error);
  }
}

/**
 * The `firstDispatchAt` to write with `sending`: the first missing unit's dispatch time (`now`)
 * merged in, or undefined when nothing changes (a delete, or that unit was dispatched before).
 */
export function firstDispatchStamp(
  intent: DurableSendIntent,
  batch: RenderedMessageBatch,
  now: number,
): Record<string, number> | undefined {
  if (intent.operation.kind === "delete") return undefined;
  const done = deliveredUnitIndexes(intent.partialReceipt);
  const next = batch.units.find((u) => !done.has(u.index))?.index;
  return withFirstDispatch(intent.firstDispatchAt, next, now);
}

/**
 * The rate-limit call of the first platform call this attempt makes (the first missing unit,
 * or a delete's first part), or undefined when it makes none.
 */
export function firstCallOf(
  adapter: ChannelMessageAdapter,
  intent: DurableSendIntent,
  batch: RenderedMessageBatch,
): RateLimitCall | undefined {
  const op = intent.operation;
  if (op.kind === "delete") {
    const part = op.receipt.parts[0];
    return part ? callOf(adapter, intent, part) : undefined;
  }
  const done = deliveredUnitIndexes(intent.partialReceipt);
  const unit = batch.units.find((u) => !done.has(u.index));
  return unit ? callOf(adapter, intent, unit) : undefined;
}
