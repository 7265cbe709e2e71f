/**
 * The per-pair loop guard: stops two bots that answer each other forever (CASES C11).
 *
 * State is in memory, per process, on purpose: it bounds a conversation's cost, it does not
 * guard correctness. With N gateway processes sharing a store, a loop is bounded by N × the
 * limit per window instead of the limit; a restart forgets running cooldowns.
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

  constructor(options: LoopGuardOptions = {}) {
    this.maxEvents = options.maxEvents ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.cooldownMs = options.cooldownMs ?? 300_000;
    this.maxPairs = options.maxPairs ?? 10_000;
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
