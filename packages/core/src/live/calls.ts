/**
 * Ephemeral platform calls of live sessions (previews, stream appends, preview deletes): a
 * send context, classification through the adapter, rate-limit tokens from the runtime's shared
 * `RateLimitScheduler` (the delivery worker's: previews and durable sends share buckets), and in-process retries for calls that are safe to repeat. None of
 * these become durable intents.
 *
 * @module
 */
import type { MessageSendContext } from "../adapter/types.ts";
import { pausedFailure, rateLimitCall } from "../delivery/ratelimit/call.ts";
import { classify } from "../delivery/units.ts";
import { backoffDelayMs, type DeliveryFailure, RETRY_POLICY } from "../message/failure.ts";
import { unitIdempotencyKey } from "../message/keys.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { RateLimitCall, RateLimitOperation, RateLimitScope } from "../message/rateLimit.ts";
import type { MessageReceiptPart } from "../message/receipt.ts";
import { type LiveRef, scopesFor } from "./env.ts";
import { delay } from "./timers.ts";

/** A failed call, classified. */
export type CallResult<T> = { ok: true; value: T } | { ok: false; failure: DeliveryFailure };

/**
 * The send context of one live platform call. With `call`, the adapter's header feedback
 * (`ctx.reportRateLimit`) goes to that call's bucket.
 */
export function liveContext(
  ref: LiveRef,
  idempotencyKey: string,
  unitIndex: number,
  message: ChannelMessage = ref.base,
  call?: RateLimitCall,
): MessageSendContext {
  const ctx: MessageSendContext = {
    intentId: ref.intentId,
    channel: message.channel,
    message,
    attempt: 1,
    idempotencyKey,
    unitIdempotencyKey: unitIdempotencyKey(idempotencyKey, unitIndex),
    signal: new AbortController().signal,
    log: ref.log,
  };
  if (message.accountId !== undefined) ctx.accountId = message.accountId;
  if (call) {
    ctx.reportRateLimit = (feedback) => ref.env.deps.scheduler.observe(call, feedback, ref.now);
  }
  return ctx;
}

const callSeq = new WeakMap<LiveRef, number>();

/**
 * A fresh key for one repeated live call (`edit`, `append`) of a session's live intent:
 * `${intentId}:${what}.${n}`. Each preview edit is its own platform operation (DESIGN §3
 * "Keys"), so none is deduplicated away; the live intent id is new for every session run, so
 * keys never repeat across restarts.
 */
export function nextCallKey(ref: LiveRef, what: "edit" | "append"): string {
  const n = (callSeq.get(ref) ?? 0) + 1;
  callSeq.set(ref, n);
  return `${ref.intentId}:${what}.${n}`;
}

/**
 * The rate-limit call of a live platform call, routed like the delivery worker's (a preview is
 * a `send`, its update an `edit`), so both land in the same buckets.
 */
export function liveCall(
  ref: LiveRef,
  operation: RateLimitOperation,
  unitKind = "text",
  part?: MessageReceiptPart,
): RateLimitCall {
  return rateLimitCall(ref.adapter, ref.base, {
    operation,
    target: ref.base.target,
    unitKind,
    part,
  });
}

/**
 * Runs one adapter call holding a call slot, and classifies what it throws. The same rule as the
 * delivery worker's (DESIGN §4 "Rate-limit routes"): the pause of `rl` is checked once more when
 * the call is about to go out — a 429 answered to any call (a durable send too) while this one
 * waited for its slot or a store write holds it back, as a `rate_limit` failure that was not
 * dispatched — and a 429 answered to this call pauses its scope before the slot is handed on.
 * The tokens the last {@link reserveNow} of `rl` took are re-counted at the answer
 * (`RateLimitScheduler.settleReserved`): they come back an interval after it, whatever the
 * call waited for between the reservation and the platform.
 */
export async function tryCall<T>(
  ref: LiveRef,
  ctx: MessageSendContext,
  fn: () => Promise<T>,
  rl: RateLimitCall,
): Promise<CallResult<T>> {
  const { scheduler, slots } = ref.env.deps;
  // Bounded like every platform call (`delivery.concurrency`, shared with the worker).
  return slots.run(async (): Promise<CallResult<T>> => {
    const paused = scheduler.pausedMs(rl, ref.now);
    if (paused > 0) return { ok: false, failure: pausedFailure(paused) };
    try {
      const value = await fn();
      scheduler.settleReserved(rl, ref.now);
      return { ok: true, value };
    } catch (error) {
      scheduler.settleReserved(rl, ref.now);
      const failure = classify(ref.adapter, error, ctx, ref.now, ref.env.deps.options.redact);
      if (failure.kind === "rate_limit") pauseFor(ref, failure, rl);
      return { ok: false, failure };
    }
  });
}

/**
 * Takes a token from every applicable bucket now, or says how long to wait (nothing taken).
 * @returns 0 when the call may go; otherwise the wait in ms.
 */
export function reserveNow(
  ref: LiveRef,
  scopes: readonly RateLimitScope[],
  call: RateLimitCall,
): number {
  return ref.env.deps.scheduler.reserve(scopes, call, ref.now);
}

/** Waits on the live timers until the tokens are taken. */
export async function takeTokens(
  ref: LiveRef,
  scopes: readonly RateLimitScope[],
  call: RateLimitCall,
): Promise<void> {
  for (;;) {
    const wait = reserveNow(ref, scopes, call);
    if (wait === 0) return;
    await delay(ref.env.timers, wait);
  }
}

/**
 * Pauses the scope the platform throttled (default: the route that was hit), shared with the
 * delivery worker, for the retry-after — or the retry policy's backoff after `failures`
 * consecutive 429s when the platform gave none. @returns the pause in ms.
 */
export function pauseFor(
  ref: LiveRef,
  failure: DeliveryFailure,
  call: RateLimitCall,
  failures = 1,
): number {
  const waitMs = Math.max(0, failure.retryAfterMs ?? backoffMs(ref, failures));
  ref.env.deps.scheduler.pause(failure.rateLimitScope ?? "route", call, ref.now + waitMs);
  return waitMs;
}

/** Backoff before retrying a failed preview call, in ms. */
export function backoffMs(ref: LiveRef, failures: number): number {
  return backoffDelayMs(failures, ref.env.deps.options.backoff, ref.env.deps.random);
}

/**
 * Runs a call that is safe to repeat (a delete — "not found" is success — or a stream finish),
 * retrying rate limits (after the platform's retry-after), not-dispatched retryable failures
 * and maybe-sent ones (repeating them cannot duplicate anything) with backoff.
 *
 * @returns `ok`, or the last failure with `retryable` telling whether a later pass may succeed.
 */
export async function retryIdempotent<T>(
  ref: LiveRef,
  p: {
    call: "delete" | "edit";
    rateLimit: RateLimitCall;
    ctx: MessageSendContext;
    fn: () => Promise<T>;
    notFoundIsSuccess: boolean;
    attempts?: number;
  },
): Promise<{ ok: true } | { ok: false; failure: DeliveryFailure; retryable: boolean }> {
  const attempts = p.attempts ?? 5;
  let failures = 0;
  let rateLimited = 0;
  let last: DeliveryFailure | undefined;
  while (failures < attempts && rateLimited < 50) {
    await takeTokens(ref, scopesFor(ref.adapter, p.call), p.rateLimit);
    const r = await tryCall(ref, p.ctx, p.fn, p.rateLimit);
    if (r.ok) return { ok: true };
    last = r.failure;
    if (last.kind === "not_found" && p.notFoundIsSuccess) return { ok: true };
    if (last.kind === "rate_limit") {
      rateLimited += 1;
      pauseFor(ref, last, p.rateLimit, rateLimited);
      continue;
    }
    if (last.evidence === "maybe_sent" || RETRY_POLICY[last.kind].retry) {
      failures += 1;
      if (failures < attempts) await delay(ref.env.timers, backoffMs(ref, failures));
      continue;
    }
    return { ok: false, failure: last, retryable: false };
  }
  return {
    ok: false,
    failure: last ?? { kind: "unknown", evidence: "not_dispatched", message: "no attempt made" },
    retryable: true,
  };
}
