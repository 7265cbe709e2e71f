/**
 * Rate-limit buckets and loop-guard counts kept in the store, shared by every gateway process
 * on it (DESIGN §11 "Scale"; docs/concepts/scaling.md). A store that implements
 * {@link SharedLimitStore} (`PostgresStateStore`) makes N processes together respect each
 * declared bucket; without it (SQLite: one process per file) they stay in process memory.
 *
 * Buckets are sliding windows made of `limit` token slots each: taking a token leases one
 * free slot until `windowMs` later (on the store's clock, so the processes' clocks need not
 * agree), all of a call's buckets or none. Durations are ms.
 *
 * @module
 */

/** One bucket a call needs a token from. */
export type SharedBucket = {
  /** The bucket key (channel, account, scope and target; see `RateLimitScheduler`). */
  key: string;
  /** Calls allowed per window. */
  limit: number;
  /** Window length in ms, margin included: a token comes back this long after it was taken. */
  windowMs: number;
};

/** A token taken from a shared bucket (pass it back to {@link SharedLimitStore.settleTokens}). */
export type SharedToken = {
  key: string;
  slot: number;
  /** When the slot frees, epoch ms on the store's clock. */
  freeAt: number;
  windowMs: number;
};

/** The outcome of {@link SharedLimitStore.takeTokens}. */
export type SharedTake =
  | { waitMs: 0; tokens: SharedToken[] }
  | { waitMs: number; blockedBy: string; tokens?: undefined };

/** Loop-guard rule of {@link SharedLimitStore.checkLoopPair} (see `LoopGuardOptions`). */
export type SharedLoopRule = { maxEvents: number; windowMs: number; cooldownMs: number };

/** Buckets and loop-guard counts shared through the store. */
export interface SharedLimitStore {
  /**
   * Takes one token from every bucket, or none (atomically, across processes).
   *
   * @returns `{ waitMs: 0, tokens }` when taken; otherwise `waitMs` (≥ 1) until the bucket
   *   `blockedBy` frees a slot (nothing taken).
   */
  takeTokens(buckets: readonly SharedBucket[]): Promise<SharedTake>;
  /**
   * Moves taken tokens later: each returns `windowMs` after `delayMs` past the moment it was
   * taken (the call started, or was answered, that much later). Never moves a token earlier.
   */
  settleTokens(tokens: readonly SharedToken[], delayMs: number): Promise<void>;
  /**
   * Counts one bot-authored event of `pair` (the loop guard, CASES C11) for every process.
   *
   * @returns `accept`, or `drop` with `cooldownUntil` (epoch ms, store clock) while the pair
   *   cools down.
   */
  checkLoopPair(
    pair: string,
    rule: SharedLoopRule,
  ): Promise<{ action: "accept" } | { action: "drop"; cooldownUntil: number }>;
}
