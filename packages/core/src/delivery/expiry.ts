/**
 * Stale-reply expiry ([H25], C55; DESIGN §12): an intent older than its `maxAgeMs` (from its
 * creation: `expiresAt = createdAt + maxAgeMs`) is not sent; it ends `expired`, a terminal
 * status. The choices (`docs/concepts/sending.md`, "maxAgeMs"):
 * - checked when an attempt starts (every attempt: the first, a retry, a resend after an unknown
 *   outcome was reconciled `not_sent`), before any platform call, so nothing of an expired intent
 *   is sent; a retry that would be due after the expiry is due at the expiry instead;
 * - an intent part of which is already visible is not expired: a live final whose preview is
 *   visible (`liveState.receipt` / `visibleSince`) is finalised, and a multi-part batch with
 *   parts on the platform (`partialReceipt`) sends its remaining parts — half an answer is worse
 *   than a late one;
 * - an intent in `unknown_after_send` is not expired while its outcome is unknown (it may be on
 *   the platform): once reconciled `not_sent` it is `pending` again and the next attempt expires
 *   it.
 *
 * @module
 */
import type { LiveMessageState } from "../message/live.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import type { DeliveryDeps } from "./deps.ts";

/** What expiry reads of an intent. */
export type ExpiryView = {
  expiresAt?: number | undefined;
  liveState?: LiveMessageState | undefined;
  partialReceipt?: MessageReceipt | undefined;
};

/**
 * Checks a `maxAgeMs` setting.
 *
 * @param path - the option's name, for the error (`delivery.maxAgeMs`).
 * @throws RangeError naming `path` when `value` is not a positive finite number of ms.
 */
export function validMaxAge(value: number | undefined, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${path} must be a positive number of milliseconds, got ${String(value)}`);
  }
  return value;
}

/**
 * The `maxAgeMs` of a new intent: the send's own, else its channel's
 * (`delivery.channelMaxAgeMs`), else the runtime's (`delivery.maxAgeMs`), else none.
 *
 * @throws RangeError when `own` is not a positive number.
 */
export function maxAgeFor(
  deps: Pick<DeliveryDeps, "options">,
  channel: string,
  own: number | undefined,
): number | undefined {
  return (
    validMaxAge(own, "SendOptions.maxAgeMs") ??
    deps.options.channelMaxAgeMs?.[channel] ??
    deps.options.maxAgeMs
  );
}

/** True when part of the intent is already visible on the platform (never expired then). */
export function partlyVisible(intent: ExpiryView): boolean {
  const live = intent.liveState;
  if (live && (live.receipt !== undefined || live.visibleSince !== undefined)) return true;
  return (intent.partialReceipt?.parts.length ?? 0) > 0;
}

/** True when the intent is past its `expiresAt` at `now` and nothing of it is visible. */
export function isExpired(intent: ExpiryView, now: number): boolean {
  return intent.expiresAt !== undefined && now >= intent.expiresAt && !partlyVisible(intent);
}

/**
 * The time a retry is due: `at`, or the intent's expiry when that comes first (so that a reply
 * held back by a long backoff or `retryAfter` ends `expired` on time, without a platform call).
 */
export function dueBeforeExpiry(intent: ExpiryView, at: number): number {
  if (intent.expiresAt === undefined || partlyVisible(intent)) return at;
  return Math.min(at, intent.expiresAt);
}
