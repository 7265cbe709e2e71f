/**
 * The take of a call's declared tokens when the buckets are shared in the store
 * (`MessageStateStore.sharedLimits`, PostgreSQL; docs/concepts/scaling.md): one round trip that
 * takes a token of every declared bucket covering the call, or none. Part of
 * {@link RateLimitScheduler.acquire}; header feedback and 429 pauses stay per process and are
 * checked first, without a round trip. All times are epoch ms.
 *
 * @module
 */
import type { RateLimitCall, RateLimitScope } from "../../message/rateLimit.ts";
import type { SharedLimitStore } from "../../state/sharedLimits.ts";
import { applies, bucketKey } from "./keys.ts";
import type { ReportedLimits } from "./reported.ts";
import type { TakeTry } from "./waiters.ts";

/** Takes shared tokens and keeps the moving average of a take's round trip. */
export class SharedTaker {
  readonly #store: SharedLimitStore;
  readonly #reported: ReportedLimits;
  readonly #margin: (intervalMs: number) => number;
  readonly #clock: () => number;
  #rtt = 0;

  constructor(
    store: SharedLimitStore,
    reported: ReportedLimits,
    margin: (intervalMs: number) => number,
    clock: () => number,
  ) {
    this.#store = store;
    this.#reported = reported;
    this.#margin = margin;
    this.#clock = clock;
  }

  /** Moving average of a take's round trip, ms: part of a shared take's lead. */
  get rttMs(): number {
    return this.#rtt;
  }

  /**
   * Takes the call's declared tokens from the store. With a lead the store may lease them as
   * of up to `leadMs` ahead (`aheadMs` after its clock read them): the call starts no earlier
   * than that long after the answer arrived (`at`), and their settle counts from that long
   * after the try began (`shared.takenAt`) — both bounds hold whenever in the round trip the
   * store's clock was read.
   *
   * @param now - epoch ms when the try began.
   * @returns what the line does next: wait `waitMs` (nothing taken), or go (`waitMs: 0`).
   */
  async take(
    scopes: readonly RateLimitScope[],
    call: RateLimitCall,
    now: number,
    leadMs: number,
  ): Promise<TakeTry> {
    const bucket = this.#reported.bucketOf(call);
    let wait = this.#reported.pausedMs(call, bucket, now);
    const observed = this.#reported.observed(bucket);
    if (observed) wait = Math.max(wait, observed.waitMs(now));
    if (wait > 0) return { waitMs: wait };
    const buckets = scopes
      .filter((scope) => applies(scope, call))
      .map((scope) => ({
        key: bucketKey(scope, call),
        limit: scope.limit,
        windowMs: scope.intervalMs + this.#margin(scope.intervalMs),
      }));
    if (buckets.length === 0) {
      observed?.take(now);
      return { waitMs: 0 };
    }
    const got = await this.#store.takeTokens(buckets, leadMs > 0 ? { leadMs } : undefined);
    const answered = this.#clock();
    this.#rtt = this.#rtt * 0.8 + Math.max(0, answered - now) * 0.2;
    if (got.tokens === undefined) return { waitMs: got.waitMs, blockedBy: got.blockedBy };
    observed?.take(now);
    const ahead = got.aheadMs ?? 0;
    return {
      waitMs: 0,
      shared: { takenAt: now + ahead, tokens: got.tokens },
      ...(ahead > 0 ? { at: answered + ahead } : {}),
    };
  }
}
