/**
 * A bounded retry loop with exponential backoff (core's `backoffDelayMs`) and an abortable
 * sleep, for calls outside the durable queue: a receiver's connect, `auth.test` at account
 * start, a reconciler's read. **Never around a durable send**: the delivery queue is the one
 * place that retries sends, after classifying.
 *
 * @module
 */
import { type BackoffOptions, backoffDelayMs, sleep } from "@herald/core";

/** Options of {@link retry}. */
export type RetryOptions = {
  /** Attempts in all, the first included. @defaultValue 3 */
  attempts?: number;
  /** Delays between attempts. @defaultValue `{ baseMs: 500, maxMs: 30_000, factor: 2, jitter: 0.5 }` */
  backoff?: Pick<BackoffOptions, "baseMs" | "maxMs" | "factor" | "jitter">;
  /**
   * Whether to try again after `error` (attempt 1 = the first one failed). Return
   * `{ delayMs }` to wait that long instead of the backoff (a 429's `retryAfterMs`).
   * @defaultValue every error is retried
   */
  shouldRetry?: (error: unknown, attempt: number) => boolean | { delayMs: number };
  /** Aborts the wait between attempts; the loop then throws `signal.reason`. */
  signal?: AbortSignal;
  /** Called before each wait. */
  onRetry?: (info: { error: unknown; attempt: number; delayMs: number }) => void;
  /** A number in [0, 1) for the jitter. @defaultValue Math.random */
  random?: () => number;
};

const DEFAULT_RETRY_BACKOFF = { baseMs: 500, maxMs: 30_000, factor: 2, jitter: 0.5 };

/**
 * Calls `fn` until it resolves, at most `attempts` times.
 *
 * @param fn - gets the attempt number, from 1.
 * @returns what `fn` resolved to.
 * @throws the last error of `fn` when attempts run out or `shouldRetry` says no;
 *   `signal.reason` when `signal` aborts; RangeError when `attempts` is not a positive integer.
 * @example
 * const me = await retry(() => client.authTest(), { attempts: 5, signal });
 */
export async function retry<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 3;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new RangeError(`retry: attempts must be a positive integer, got ${attempts}`);
  }
  const backoff = { ...DEFAULT_RETRY_BACKOFF, ...options.backoff };
  const { signal } = options;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= attempts) throw error;
      const verdict = options.shouldRetry?.(error, attempt) ?? true;
      if (verdict === false) throw error;
      const delayMs =
        verdict === true
          ? backoffDelayMs(attempt, backoff, options.random)
          : Math.max(0, verdict.delayMs);
      options.onRetry?.({ error, attempt, delayMs });
      if (!(await sleep(delayMs, signal))) signal?.throwIfAborted();
    }
  }
}
