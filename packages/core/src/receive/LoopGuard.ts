/**
 * The per-pair loop guard: stops two bots that answer each other forever (CASES C11).
 *
 * It bounds a conversation's cost, it does not guard correctness. With a store that shares
 * limits (`MessageStateStore.sharedLimits`, PostgreSQL) the counts and cooldowns live in the
 * store, so N gateway processes together allow `maxEvents` per window and a restart keeps
 * running cooldowns; otherwise (SQLite, one process) they are in memory. When the store cannot
 * be reached the pair is counted in memory for that event.
 *
 * @module
 */

/** Options of the loop guard. */
export type LoopGuardOptions = {
  /**
   * Bot-authored events one pair may have accepted within `windowMs` before the pair is
   * cooled down. Lower it for rooms where bots should rarely talk to each other.
   * @defaultValue 10
   */
  maxEvents?: number;
  /** Sliding window for `maxEvents`, in milliseconds. @defaultValue 60_000 */
  windowMs?: number;
  /**
   * How long a pair's events are dropped once it tripped, in milliseconds. Afterwards the pair
   * starts with a clean count.
   * @defaultValue 300_000
   */
  cooldownMs?: number;
  /** Most pairs kept in memory; the least recently seen are forgotten first. @defaultValue 10_000 */
  maxPairs?: number;
};

import type { SharedLimitStore } from "../state/sharedLimits.ts";

/** Verdict for one event. */
export type LoopGuardVerdict =
  | { action: "accept" }
  | { action: "drop"; reason: "loop_guard"; cooldownUntil: number };

type PairState = { times: number[]; cooldownUntil: number };

/**
 * Counts accepted bot-authored events per pair (our account × the other bot × the
 * conversation) in a sliding window; the event that would exceed `maxEvents` starts a cooldown
 * during which the pair's events are dropped.
 */
export class LoopGuard {
  readonly maxEvents: number;
  readonly windowMs: number;
  readonly cooldownMs: number;
  readonly maxPairs: number;
  readonly #pairs = new Map<string, PairState>();
  readonly #shared: SharedLimitStore | undefined;

  /** @param shared - keep the counts in the store, shared by every process on it. */
  constructor(options: LoopGuardOptions = {}, shared?: SharedLimitStore) {
    this.maxEvents = options.maxEvents ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.cooldownMs = options.cooldownMs ?? 300_000;
    this.maxPairs = options.maxPairs ?? 10_000;
    this.#shared = shared;
  }

  /**
   * Like {@link check}, in the store when it shares limits (every process counts the pair
   * together; times on the store's clock), else in memory at `now`.
   */
  async verdict(pair: string, now: number): Promise<LoopGuardVerdict> {
    if (!this.#shared) return this.check(pair, now);
    try {
      const v = await this.#shared.checkLoopPair(pair, {
        maxEvents: this.maxEvents,
        windowMs: this.windowMs,
        cooldownMs: this.cooldownMs,
      });
      return v.action === "accept"
        ? v
        : { action: "drop", reason: "loop_guard", cooldownUntil: v.cooldownUntil };
    } catch {
      return this.check(pair, now);
    }
  }

  /**
   * Records one event of `pair` at `now` (epoch ms) and says whether it may be dispatched.
   * Only call it for events that would otherwise be accepted.
   */
  check(pair: string, now: number): LoopGuardVerdict {
    let state = this.#pairs.get(pair);
    if (state) this.#pairs.delete(pair); // re-insert below: Map order = recency
    state ??= { times: [], cooldownUntil: 0 };
    this.#pairs.set(pair, state);
    this.#evict();

    if (now < state.cooldownUntil) {
      return { action: "drop", reason: "loop_guard", cooldownUntil: state.cooldownUntil };
    }
    if (state.cooldownUntil !== 0) {
      state.cooldownUntil = 0;
      state.times = [];
    }
    state.times = state.times.filter((t) => now - t < this.windowMs);
    if (state.times.length >= this.maxEvents) {
      state.cooldownUntil = now + this.cooldownMs;
      state.times = [];
      return { action: "drop", reason: "loop_guard", cooldownUntil: state.cooldownUntil };
    }
    state.times.push(now);
    return { action: "accept" };
  }

  #evict(): void {
    while (this.#pairs.size > this.maxPairs) {
      const oldest = this.#pairs.keys().next();
      if (oldest.done) return;
      this.#pairs.delete(oldest.value);
    }
  }
}
