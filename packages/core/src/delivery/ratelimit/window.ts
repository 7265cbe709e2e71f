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
  /**
   * Free times of the tokens whose call has not answered yet (→ how many): the platform may
   * count such a call at any moment until its answer, so no lead hands their tokens on.
   */
  readonly #open = new Map<number, number>();

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
    this.#markOpen(freeAt);
    return freeAt;
  }

  /**
   * Spends one token as of `at` (≥ `now`, and no earlier than {@link waitMs} says): the token
   * that comes back first, by `at`, is handed on at once. @returns when it frees (epoch ms).
   */
  takeAhead(now: number, at: number, marginMs: number): number {
    this.#trim(now);
    if (at > now && this.#freeAt.length >= this.limit) {
      const handedOn = this.#freeAt.shift();
      if (handedOn !== undefined) this.#unmarkOpen(handedOn);
    }
    const freeAt = at + this.intervalMs + marginMs;
    this.#insert(freeAt);
    this.#markOpen(freeAt);
    return freeAt;
  }

  /**
   * Counts a call already answered whose token frees at `freeAt` (epoch ms): a call made before
   * this process started (`RateLimitScheduler.recordPast`). Of more tokens than `limit`, only
   * the `limit` that free last are kept: they alone decide when the next call may go.
   */
  record(now: number, freeAt: number): void {
    this.#trim(now);
    if (freeAt <= now) return;
    this.#insert(freeAt);
    while (this.#freeAt.length > this.limit) {
      const dropped = this.#freeAt.shift();
      if (dropped !== undefined) this.#unmarkOpen(dropped);
    }
  }

  /**
   * True when the call must wait and the token that comes back first belongs to a call that
   * has not answered yet (see {@link move}'s `answered`): it may not be taken ahead.
   */
  headOpen(now: number): boolean {
    this.#trim(now);
    const head = this.#freeAt[0];
    return this.#freeAt.length >= this.limit && head !== undefined && this.#open.has(head);
  }

  /**
   * Moves the token that frees at `freeAt` to free at `to` instead (earlier or later), keeping
   * the log in order. A token no longer out (already freed) is left alone.
   * @param answered - the token's call has answered (a settle): from now on it may be taken
   *   ahead ({@link takeAhead}); otherwise it stays as open as it was (a restamp).
   */
  move(freeAt: number, to: number, answered = false): void {
    const at = this.#freeAt.lastIndexOf(freeAt);
    if (at < 0) return;
    const open = this.#unmarkOpen(freeAt);
    if (to !== freeAt) {
      this.#freeAt.splice(at, 1);
      this.#insert(to);
    }
    if (open && !answered) this.#markOpen(to);
  }

  /** Gives back the token that frees at `freeAt` (a call that was not made after all). */
  untake(freeAt: number): void {
    const at = this.#freeAt.lastIndexOf(freeAt);
    if (at < 0) return;
    this.#freeAt.splice(at, 1);
    this.#unmarkOpen(freeAt);
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

  #markOpen(freeAt: number): void {
    this.#open.set(freeAt, (this.#open.get(freeAt) ?? 0) + 1);
  }

  /** @returns whether a token freeing at `freeAt` was open (one is no longer). */
  #unmarkOpen(freeAt: number): boolean {
    const n = this.#open.get(freeAt);
    if (n === undefined) return false;
    if (n > 1) this.#open.set(freeAt, n - 1);
    else this.#open.delete(freeAt);
    return true;
  }

  #trim(now: number): void {
    let n = 0;
    while (n < this.#freeAt.length && (this.#freeAt[n] ?? 0) <= now) n++;
    if (n === 0) return;
    this.#freeAt.splice(0, n);
    if (this.#open.size > 0)
      for (const at of this.#open.keys()) if (at <= now) this.#open.delete(at);
  }
}
