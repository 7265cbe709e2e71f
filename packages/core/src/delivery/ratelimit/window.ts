/**
 * One sliding-window token bucket: at most `limit` calls in any window of `intervalMs`. A token
 * comes back `intervalMs` (plus the margin it was taken with) after it was spent, which is
 * stricter than a refill-rate bucket (that can burst past a platform's sliding window). Each
 * token carries its own free time, so calls that are re-counted at their answer (durable sends)
 * and calls that are not (live previews) can share one bucket with different margins. All times
 * are epoch ms.
 *
 * @module
 */

/** A sliding-window log of the calls let through, as the times their tokens free. */
export class SlidingWindow {
  readonly limit: number;
  /** Window length in ms, margin excluded. */
  readonly intervalMs: number;
  /** When each token out frees (epoch ms), ascending. */
  readonly #freeAt: number[] = [];

  constructor(limit: number, intervalMs: number) {
    this.limit = limit;
    this.intervalMs = intervalMs;
  }

  /** How many ms until a token is free (0 = now). */
  waitMs(now: number): number {
    this.#trim(now);
    if (this.#freeAt.length < this.limit) return 0;
    return (this.#freeAt[0] ?? now) - now;
  }

  /**
   * Spends one token at `now` (call {@link waitMs} first): it frees `intervalMs + marginMs`
   * later. @returns when it frees (epoch ms; the handle of {@link move}).
   */
  take(now: number, marginMs: number): number {
    const freeAt = now + this.intervalMs + marginMs;
    this.#insert(freeAt);
    return freeAt;
  }

  /**
   * Spends one token as of `at` (≥ `now`, and no earlier than {@link waitMs} says): the token
   * that comes back first, by `at`, is handed on at once. @returns when it frees (epoch ms).
   */
  takeAhead(now: number, at: number, marginMs: number): number {
    this.#trim(now);
    if (at > now && this.#freeAt.length >= this.limit) this.#freeAt.shift();
    const freeAt = at + this.intervalMs + marginMs;
    this.#insert(freeAt);
    return freeAt;
  }

  /**
   * Moves the token that frees at `freeAt` to free at `to` instead (earlier or later), keeping
   * the log in order. A token no longer out (already freed) is left alone.
   */
  move(freeAt: number, to: number): void {
    if (to === freeAt) return;
    const at = this.#freeAt.lastIndexOf(freeAt);
    if (at < 0) return;
    this.#freeAt.splice(at, 1);
    this.#insert(to);
  }

  /** Gives back the token that frees at `freeAt` (a call that was not made after all). */
  untake(freeAt: number): void {
    const at = this.#freeAt.lastIndexOf(freeAt);
    if (at >= 0) this.#freeAt.splice(at, 1);
  }

  /** True when no token is out: the window can be forgotten. */
  idle(now: number): boolean {
    this.#trim(now);
    return this.#freeAt.length === 0;
  }

  #insert(freeAt: number): void {
    let i = this.#freeAt.length;
    while (i > 0 && (this.#freeAt[i - 1] ?? 0) > freeAt) i--;
    this.#freeAt.splice(i, 0, freeAt);
  }

  #trim(now: number): void {
    let n = 0;
    while (n < this.#freeAt.length && (this.#freeAt[n] ?? 0) <= now) n++;
    if (n > 0) this.#freeAt.splice(0, n);
  }
}
