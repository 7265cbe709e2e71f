/**
 * Failure classes and the core retry policy (seed `message-lifecycle.md`, "Failure classes";
 * DESIGN §3 "two evidence axes").
 *
 * @module
 */

/** Closed set of failure kinds an adapter classifies transport errors into. */
export type DeliveryFailureKind =
  | "transient"
  | "rate_limit"
  | "auth"
  | "permission"
  | "not_found"
  | "invalid_payload"
  | "conflict"
  | "cancelled"
  | "unknown";

/** Every {@link DeliveryFailureKind}, for exhaustive tables and validation. */
export const DELIVERY_FAILURE_KINDS: readonly DeliveryFailureKind[] = [
  "transient",
  "rate_limit",
  "auth",
  "permission",
  "not_found",
  "invalid_payload",
  "conflict",
  "cancelled",
  "unknown",
];

/**
 * Dispatch evidence: did the request possibly reach the platform?
 * - `not_dispatched`: provably never reached it (DNS failure, ECONNREFUSED, rejected before
 *   acceptance such as a 429 or a 400). Safe to retry blindly.
 * - `maybe_sent`: it may have been accepted (socket reset or timeout after the write, 5xx).
 *   Never retried blindly; goes through reconciliation (`unknown_after_send`).
 */
export type DispatchEvidence = "not_dispatched" | "maybe_sent";

/** A classified delivery failure, as stored on an intent. Plain JSON. */
export type DeliveryFailure = {
  kind: DeliveryFailureKind;
  evidence: DispatchEvidence;
  /** How long the platform asked us to wait, in milliseconds (converted from `retry_after` s). */
  retryAfterMs?: number;
  /** Human-readable reason, already redacted of secrets. */
  message: string;
  /** Platform error code in the platform's own spelling (`M_LIMIT_EXCEEDED`, `ratelimited`, 429). */
  platformCode?: string;
  /**
   * For `rate_limit`: which scope the platform throttled. The scheduler pauses it (the route
   * that was hit, one chat, one thread, or the whole account) until `retryAfterMs`, or for the
   * retry policy's backoff when the platform gave none; other routes and chats keep flowing.
   * @defaultValue "route" (the route of the call that was answered 429)
   */
  rateLimitScope?: "account" | "chat" | "thread" | "route";
  /** Reconciliation checks of an `unknown_after_send` intent that came back unresolved. */
  unresolvedChecks?: number;
  /**
   * Epoch ms of the first `maybe_sent` outcome of the intent's next missing unit that no lookup
   * has settled yet. Kept across later `not_dispatched` failures of that unit: a retry of it is
   * still a replay of a call the platform may have, so it is only sent while the native key is
   * trusted (else it goes back to reconciliation or `unknownSendPolicy`).
   */
  inDoubtSince?: number;
  /**
   * Why herald itself (not the platform) held the intent, when it did. `receipt_conflict`: the
   * platform answered with a message id that is already the receipt of another unit of the
   * same channel and account (DESIGN §12 "Receipt ids are unique"); `receiptConflict` names it.
   * Absent for failures the adapter classified.
   */
  reason?: DeliveryFailureReason;
  /** For `reason: "receipt_conflict"`: the platform message id and the unit that holds it. */
  receiptConflict?: ReceiptConflictDetail;
  /** Epoch milliseconds when the failure happened. */
  at?: number;
  /**
   * The number of the attempt that ended with this failure (`DurableSendIntent.attempt` as it
   * was then). It stays with the failure when an operator's retry starts the next attempt, so a
   * timeline never numbers an old failure with a later attempt's number. Absent on failures
   * written by older versions and on failures no attempt made (a render failure).
   */
  attempt?: number;
};

/**
 * Reasons herald holds an intent on its own account (see {@link DeliveryFailure.reason}). A
 * closed set, so that operators and metrics can match on it.
 */
export type DeliveryFailureReason = "receipt_conflict";

/**
 * A platform message id answered for a unit that another unit already holds as its receipt
 * (DESIGN §12 "Receipt ids are unique"; CASES C40). Plain JSON, stored on the held intent.
 */
export type ReceiptConflictDetail = {
  /** The platform message id, in the adapter's form (`<chat>:<id>` on some channels). */
  platformMessageId: string;
  /** Unit index of the held intent's part that was answered with it. */
  partIndex: number;
  /** The intent that holds the id (the held intent's own id when two of its units got it). */
  heldByIntentId: string;
  /** Unit index of that intent's part (-1: listed without a part). */
  heldByPartIndex: number;
};

/** What the core does with a failure of a given kind. */
export type RetryRule = {
  /** Retry automatically after backoff (only when evidence is `not_dispatched`). */
  retry: boolean;
  /** The platform's retry-after, when given, replaces the computed backoff. */
  honorRetryAfter: boolean;
  /** Why, in one line (shown in `herald queue show`). */
  reason: string;
};

/**
 * The per-kind retry policy table (seed, "Core policy"). `maybe_sent` evidence overrides it:
 * such failures go to `unknown_after_send` whatever the kind.
 */
export const RETRY_POLICY: Readonly<Record<DeliveryFailureKind, RetryRule>> = {
  transient: { retry: true, honorRetryAfter: true, reason: "temporary platform or network error" },
  rate_limit: { retry: true, honorRetryAfter: true, reason: "rate limited; waits for retry-after" },
  auth: { retry: false, honorRetryAfter: false, reason: "credentials rejected; fix the config" },
  permission: { retry: false, honorRetryAfter: false, reason: "bot lacks access to the target" },
  not_found: {
    retry: false,
    honorRetryAfter: false,
    reason: "target gone; live edits fall back to a fresh send when the adapter allows it",
  },
  invalid_payload: {
    retry: false,
    honorRetryAfter: false,
    reason: "platform rejected the content; retrying cannot help",
  },
  conflict: {
    retry: false,
    honorRetryAfter: false,
    reason: "already exists or changed; receipts and idempotency decide",
  },
  cancelled: {
    retry: false,
    honorRetryAfter: false,
    reason: "cancelled by an operator or supersede",
  },
  unknown: {
    retry: true,
    honorRetryAfter: true,
    reason: "unclassified error; retried with backoff",
  },
};

/** Backoff settings. All durations in milliseconds. */
export type BackoffOptions = {
  /** First retry delay. @defaultValue 1_000 */
  baseMs?: number;
  /** Ceiling for any computed delay (retry-after from the platform may exceed it). @defaultValue 300_000 */
  maxMs?: number;
  /** Multiplier per attempt. @defaultValue 2 */
  factor?: number;
  /** Fraction of the delay randomized away ("equal jitter" keeps at least 1 − jitter). @defaultValue 0.5 */
  jitter?: number;
  /** Attempts after which a retryable failure becomes `failed`. @defaultValue 8 */
  maxAttempts?: number;
  /**
   * Attempts after which repeated `rate_limit` failures become `failed`. Higher than
   * `maxAttempts`: the platform said when to come back, so waiting is not failing.
   * @defaultValue 50
   */
  maxRateLimitAttempts?: number;
};

/** Resolved {@link BackoffOptions} defaults. */
export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  baseMs: 1_000,
  maxMs: 300_000,
  factor: 2,
  jitter: 0.5,
  maxAttempts: 8,
  maxRateLimitAttempts: 50,
};

/**
 * Exponential backoff with jitter and a ceiling.
 *
 * @param attempt - attempts made so far (1 after the first failure).
 * @param random - a number in [0, 1); injectable for tests.
 * @returns the delay in milliseconds, in `[(1 − jitter)·d, d]` where `d = min(maxMs, base·factor^(attempt−1))`.
 */
export function backoffDelayMs(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const o = { ...DEFAULT_BACKOFF, ...options };
  const exp = Math.max(0, attempt - 1);
  const ceiling = Math.min(o.maxMs, o.baseMs * o.factor ** exp);
  return Math.round(ceiling * (1 - o.jitter) + ceiling * o.jitter * random());
}

/** What to do after a failed attempt. */
export type RetryDecision =
  | { action: "retry"; delayMs: number }
  | { action: "fail"; reason: string }
  | { action: "unknown_after_send" };

/**
 * Applies the retry policy to a failure: `maybe_sent` → `unknown_after_send`; a retryable kind
 * with attempts left → `retry` after the platform's retry-after when it gave one (it wins),
 * else after backoff; anything else → `fail` with the reason kept.
 *
 * @param failure - the classified failure.
 * @param attempt - attempts made so far, including the one that failed.
 */
export function decideRetry(
  failure: DeliveryFailure,
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): RetryDecision {
  if (failure.evidence === "maybe_sent") return { action: "unknown_after_send" };
  return decideReplay(failure, attempt, options, random);
}

/**
 * The replay gate (DESIGN §3 "Replay gate"): whether and when a call may be made again after
 * `failure`, whatever made the replay safe (a `not_dispatched` retry, a native-key replay of a
 * `maybe_sent` unit, reconciliation answering `not_sent`, `unknownSendPolicy: "at_least_once"`).
 * Every path gets the same backoff with jitter, the platform's retry-after, and `maxAttempts`.
 *
 * @param failure - the failure of the last attempt.
 * @param attempt - attempts made so far, including the one that failed.
 * @returns `retry` after `delayMs` (ms, from the failure), or `fail` with the reason to keep.
 */
export function decideReplay(
  failure: DeliveryFailure,
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): Exclude<RetryDecision, { action: "unknown_after_send" }> {
  const rule = RETRY_POLICY[failure.kind];
  if (!rule.retry) return { action: "fail", reason: `${failure.kind}: ${rule.reason}` };
  const maxAttempts =
    failure.kind === "rate_limit"
      ? (options.maxRateLimitAttempts ?? DEFAULT_BACKOFF.maxRateLimitAttempts)
      : (options.maxAttempts ?? DEFAULT_BACKOFF.maxAttempts);
  if (attempt >= maxAttempts) {
    return { action: "fail", reason: `${failure.kind}: gave up after ${attempt} attempts` };
  }
  if (rule.honorRetryAfter && failure.retryAfterMs !== undefined) {
    return { action: "retry", delayMs: Math.max(0, failure.retryAfterMs) };
  }
  return { action: "retry", delayMs: backoffDelayMs(attempt, options, random) };
}
