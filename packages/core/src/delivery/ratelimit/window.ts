/**
 * One sliding-window token bucket: at most `limit` calls in any window of `intervalMs`. A token
 * comes back `intervalMs` after it was spent, which is stricter than a refill-rate bucket (that
 * can burst past a platform's sliding window). All times are epoch ms.
 *
 * @module
 */

/** A sliding-window log of the calls let through. */
export class SlidingWindow {
  readonly limit: number;
  /** Window length in ms, margin included. */
  readonly intervalMs: number;
  readonly #spentAt: number[] = [];

  constructor(limit: number, intervalMs: number) {
    this.limit = limit;
    this.intervalMs = intervalMs;
  }

  /** How many ms until a token is free (0 = now). */
  waitMs(now: number): number {
    this.#trim(now);
    if (this.#spentAt.length < this.limit) return 0;
    return (this.#spentAt[0] ?? now) + this.intervalMs - now;
  }

  /** Spends one token at `now` (call {@link waitMs} first). */
  take(now: number): void {
    this.#spentAt.push(now);
  }

  /** Moves the token spent at `takenAt` to `now` (later), keeping the log in time order. */
  restamp(takenAt: number, now: number): void {
    const at = this.#spentAt.lastIndexOf(takenAt);
    if (at < 0) return;
    this.#spentAt.splice(at, 1);
    let i = this.#spentAt.length;
    while (i > 0 && (this.#spentAt[i - 1] ?? 0) > now) i--;
    this.#spentAt.splice(i, 0, now);
  }

  /** True when no token is out: the window can be forgotten. */
  idle(now: number): boolean {
    this.#trim(now);
    return this.#spentAt.length === 0;
  }

  #trim(now: number): void {
    while (this.#spentAt.length > 0 && (this.#spentAt[0] ?? 0) + this.intervalMs <= now) {
      this.#spentAt.shift();
    }
  }
}
