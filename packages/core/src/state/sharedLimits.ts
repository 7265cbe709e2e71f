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

/**
 * The outcome of {@link SharedLimitStore.takeTokens}. `aheadMs` (taken with a lead): the
 * tokens were leased as of that many ms after the store's clock read them — start the call no
 * earlier than `aheadMs` after the answer arrived.
 */
export type SharedTake =
  | { waitMs: 0; tokens: SharedToken[]; aheadMs?: number | undefined }
  | { waitMs: number; blockedBy: string; tokens?: undefined; aheadMs?: undefined };

/** Options of {@link SharedLimitStore.takeTokens}. */
export type SharedTakeOptions = {
  /**
   * Take a slot up to this many ms before it frees, when the call that last held it has
   * answered and been settled (ms). @defaultValue 0
   */
  leadMs?: number | undefined;
};

/** Loop-guard rule of {@link SharedLimitStore.checkLoopPair} (see `LoopGuardOptions`). */
export type SharedLoopRule = { maxEvents: number; windowMs: number; cooldownMs: number };

/** Buckets and loop-guard counts shared through the store. */
export interface SharedLimitStore {
  /**
   * Takes one token from every bucket, or none (atomically, across processes). With a lead,
   * a slot that frees within `leadMs` may be taken (only one whose call was settled: a call
   * still in flight may be re-counted at its answer); all of the call's tokens are then leased
   * as of when the latest one frees (`aheadMs`).
   *
   * @returns `{ waitMs: 0, tokens, aheadMs? }` when taken; otherwise `waitMs` (≥ 1) until the
   *   bucket `blockedBy` frees a slot, lead deducted (nothing taken).
   */
  takeTokens(buckets: readonly SharedBucket[], options?: SharedTakeOptions): Promise<SharedTake>;
  /**
   * Settles taken tokens once their call answered: each returns `windowMs` after `delayMs`
   * past the moment it was taken (the call started, or was answered, that much later), and
   * may now be taken ahead of time. Never moves a token earlier (`delayMs` 0 only marks it
   * answered). A store may send it with its next take (a few ms later; `PostgresStateStore`).
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
