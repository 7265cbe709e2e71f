/**
 * The line of calls waiting for rate-limit tokens. Instead of each waiter sleeping and asking
 * again (a thundering herd in which the unlucky wait past their deadline), waiters queue in
 * arrival order and one timer wakes the line when the earliest bucket refills: the first
 * waiter whose buckets all have tokens takes them (first come, first served among those that
 * can go, so a call held by its own chat's bucket never holds up calls to other chats).
 *
 * A try may be asynchronous (buckets shared in a store): passes never overlap, and a pass starts
 * the tries of every waiter in line before awaiting any (the store serves them in one round
 * trip, in line order). Synchronous tries are settled one by one: within a pass a bucket that
 * held one waiter back is not asked again for the waiters behind it.
 * All times are epoch ms and durations ms.
 *
 * @module
 */

import type { SharedToken } from "../../state/sharedLimits.ts";

/** The outcome of one try to take a call's tokens. */
export type TakeTry = {
  /** 0 when the tokens were taken; otherwise ms until the call could go (nothing taken). */
  waitMs: number;
  /** The bucket that held the call back (callers behind it in one pass skip asking it). */
  blockedBy?: string | undefined;
  /** Tokens taken from buckets shared in the store (for `RateLimitScheduler.settle`). */
  shared?: SharedTaken | undefined;
  /**
   * When the tokens were taken as of (epoch ms), when later than the try (a lead): the call
   * starts no earlier.
   */
  at?: number | undefined;
};

/**
 * Tokens taken from buckets shared in the store, and the epoch ms (this process's clock) their
 * lease counts from — no later than the store's take: what `RateLimitScheduler.settle` moves
 * them from.
 */
export type SharedTaken = { takenAt: number; tokens: readonly SharedToken[] };

/**
 * What a waiter gets: the tokens (`waitMs` 0, taken as of `takenAt`: the call starts no
 * earlier), or the wait it gave up on.
 */
export type Acquired =
  | { waitMs: 0; takenAt: number; shared?: SharedTaken | undefined }
  | { waitMs: number; takenAt?: undefined; shared?: undefined };

/** Timer functions of the line (fake ones in tests). */
export type WaiterTimers = {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

type Waiter = {
  take: (now: number) => TakeTry | Promise<TakeTry>;
  /** The buckets the call needs (a pass skips the waiter when one of them held someone back). */
  buckets: readonly string[];
  deadline: number;
  signal: AbortSignal | undefined;
  resolve: (result: Acquired) => void;
  /** Fails the wait with the error of its try (the store could not be asked). */
  reject: (error: unknown) => void;
  /** When the call could go, as of the last try (epoch ms). */
  readyAt: number;
};

/** A first-come-first-served line of token waiters, woken by one timer. */
export class WaiterQueue {
  readonly #clock: () => number;
  readonly #timers: WaiterTimers;
  #line: Waiter[] = [];
  /** Bucket key → epoch ms until which it holds the waiters in line back (from the last pass). */
  #blocked = new Map<string, number>();
  #timer: unknown;
  #timerAt = Number.POSITIVE_INFINITY;
  #passing = false;

  constructor(clock: () => number, timers: WaiterTimers) {
    this.#clock = clock;
    this.#timers = timers;
  }

  /** Waiters in line. */
  get size(): number {
    return this.#line.length;
  }

  /**
   * Waits in line for a call's tokens. A call none of whose buckets holds a waiter back tries
   * at once; otherwise it queues behind them, and the line is served in arrival order when the
   * timer fires, each pass in a task of its own (the calls it lets go start together, not
   * inside whichever call happened to arrive).
   *
   * @param take - takes the tokens now or says how long until it could (at most once per pass).
   * @param buckets - keys of the buckets `take` needs.
   * @param maxWaitMs - give up (nothing taken) when the wait would end later than this from now.
   * @returns `{ waitMs: 0, takenAt }` once taken; `{ waitMs }` (≥ 1) when the wait is longer than
   *   `maxWaitMs` or `signal` aborted.
   */
  async acquire(
    take: Waiter["take"],
    buckets: readonly string[],
    maxWaitMs: number,
    signal?: AbortSignal,
  ): Promise<Acquired> {
    if (signal?.aborted) return { waitMs: 1 };
    let now = this.#clock();
    let first: TakeTry | undefined;
    if (this.#heldUntil(buckets) <= now) {
      const before = now;
      const r = take(now);
      first = r instanceof Promise ? await r : r;
      now = this.#clock();
      // Stamped when the try began (a store's clock took them during the round trip).
      if (first.waitMs <= 0) {
        return { waitMs: 0, takenAt: first.at ?? before, shared: first.shared };
      }
      if (first.blockedBy !== undefined) this.#hold(first.blockedBy, now + first.waitMs);
      if (first.waitMs > maxWaitMs) return { waitMs: first.waitMs };
    }
    return new Promise<Acquired>((resolve, reject) => {
      const waiter: Waiter = {
        take,
        buckets,
        deadline: now + maxWaitMs,
        signal,
        resolve,
        reject,
        readyAt: now + (first?.waitMs ?? Math.max(1, this.#heldUntil(buckets) - now)),
      };
      if (signal) {
        const onAbort = () => this.wake();
        signal.addEventListener("abort", onAbort, { once: true });
        waiter.resolve = (result) => {
          signal.removeEventListener("abort", onAbort);
          resolve(result);
        };
        waiter.reject = (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        };
      }
      this.#line.push(waiter);
      this.#arm(Math.min(this.#timerAt, waiter.readyAt));
    });
  }

  /**
   * Takes a call's tokens now if none of its buckets holds a waiter back and they are there;
   * never queues. @returns like {@link acquire} (`waitMs` > 0: nothing taken).
   */
  async tryNow(take: Waiter["take"], buckets: readonly string[]): Promise<Acquired> {
    const now = this.#clock();
    const held = this.#heldUntil(buckets);
    if (held > now) return { waitMs: held - now };
    const r = take(now);
    const result = r instanceof Promise ? await r : r;
    if (result.waitMs <= 0) return { waitMs: 0, takenAt: result.at ?? now, shared: result.shared };
    return { waitMs: result.waitMs };
  }

  /** Serves the line no later than `at` (epoch ms: a token comes back sooner than it said). */
  wakeBy(at: number): void {
    if (this.#line.length > 0) this.#arm(Math.min(this.#timerAt, at));
  }

  /** Serves the line soon (tokens may have come back early: a new report, a reset). */
  wake(): void {
    if (this.#line.length > 0) this.#arm(this.#clock());
  }

  #heldUntil(buckets: readonly string[]): number {
    let until = 0;
    for (const b of buckets) until = Math.max(until, this.#blocked.get(b) ?? 0);
    return until;
  }

  #hold(bucket: string, until: number): void {
    this.#blocked.set(bucket, Math.max(this.#blocked.get(bucket) ?? 0, until));
  }

  async #pass(): Promise<void> {
    if (this.#passing) return;
    this.#passing = true;
    try {
      this.#blocked = new Map();
      let next = Number.POSITIVE_INFINITY;
      const line = this.#line;
      this.#line = [];
      // Every try starts before any is awaited, in line order: a store that keeps the buckets
      // takes the tokens of the whole line in one round trip (and in this order), instead of one
      // round trip per waiter. A synchronous try is settled at once, so a bucket that held one
      // waiter back is not asked again for the waiters behind it.
      const tries: Array<{ w: Waiter; before: number; result: TakeTry | Promise<TakeTry> }> = [];
      for (const w of line) {
        const now = this.#clock();
        if (w.signal?.aborted) {
          w.resolve({ waitMs: Math.max(1, w.readyAt - now) });
          continue;
        }
        const held = this.#heldUntil(w.buckets);
        const result = held > now ? { waitMs: held - now } : w.take(now);
        if (!(result instanceof Promise)) this.#settle(w, now, result);
        tries.push({ w, before: now, result });
      }
      const kept: Waiter[] = [];
      for (const { w, before, result } of tries) {
        let r: TakeTry;
        try {
          r = result instanceof Promise ? await result : result;
        } catch (error) {
          w.reject(error); // as a first try that fails does (the attempt ends, its lease is released)
          continue;
        }
        if (result instanceof Promise) this.#settle(w, before, r);
        if (r.waitMs <= 0) {
          w.resolve({ waitMs: 0, takenAt: r.at ?? before, shared: r.shared });
          continue;
        }
        if (w.readyAt > w.deadline) {
          w.resolve({ waitMs: Math.max(1, r.waitMs) });
          continue;
        }
        next = Math.min(next, w.readyAt);
        kept.push(w);
      }
      // Waiters that queued during an asynchronous pass stay behind the ones kept.
      for (const w of this.#line) next = Math.min(next, w.readyAt);
      this.#line = kept.concat(this.#line);
      this.#arm(next);
    } finally {
      this.#passing = false;
    }
  }

  /** Records a refused try: the bucket that held the waiter back, and when it could go. */
  #settle(w: Waiter, before: number, result: TakeTry): void {
    if (result.waitMs <= 0) return;
    const now = Math.max(before, this.#clock());
    if (result.blockedBy !== undefined) this.#hold(result.blockedBy, now + result.waitMs);
    w.readyAt = now + result.waitMs;
  }

  #arm(at: number): void {
    if (at >= this.#timerAt && this.#timer !== undefined) return;
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = at;
    if (!Number.isFinite(at)) return;
    this.#timer = this.#timers.setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        void this.#pass();
      },
      Math.max(0, at - this.#clock()),
    );
  }
}
