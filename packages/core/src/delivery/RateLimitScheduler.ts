/**
 * The rate-limit scheduler (DESIGN §4, §8 "Rate-limit routes"): before every platform call —
 * durable sends and live previews alike — it takes a token from each declared scope that covers
 * the call, so a well-behaved gateway never sees a 429. Three sources hold a call back:
 *
 * 1. **Declared scopes** (`capabilities.rateLimits`), per operation and target kind: a
 *    sliding-window bucket per scope key (account, chat, thread or route). The platform counts a
 *    call when it arrives, a little after the scheduler let it go, so a token comes back
 *    `marginMs` late (default 1 % of the interval + 1 ms) — until the call is re-counted at its
 *    answer ({@link RateLimitScheduler.settle}, durable sends): the platform counted it before
 *    it answered, so its token then comes back an interval + `answerMarginMs` (default 1 ms)
 *    after the answer, earlier or later than the blanket margin would have it. Calls never
 *    settled (live previews and edits) keep the margin.
 * 2. **Header feedback** (`observe`): what the platform said about the route's bucket
 *    (`remaining`, `resetAfterMs`, `bucket`); once `remaining` is spent the route waits for the
 *    reset, so it slows down before it 429s. Routes reported with one bucket share it.
 * 3. **Pauses** (`pause`) after a 429, on the scope the platform throttled — the route that was
 *    hit unless the adapter names a wider scope — for the retry-after, or the retry policy's
 *    backoff when the platform gave none (Google Chat).
 *
 * Calls that must wait queue in one line per scheduler ({@link RateLimitScheduler.acquire}):
 * one timer wakes them, in arrival order, when the earliest bucket refills.
 *
 * All times are epoch ms and all durations ms. State is per process (one scheduler per runtime,
 * keys per channel and account), except the declared buckets of `acquire` when the store
 * shares limits (`MessageStateStore.sharedLimits`, PostgreSQL): those are token slots in the
 * database, so N processes together respect each declared limit (docs/concepts/scaling.md).
 *
 * @module
 */
import type { RateLimitCall, RateLimitFeedback, RateLimitScope } from "../message/rateLimit.ts";
import type { SharedLimitStore } from "../state/sharedLimits.ts";
import { MAX_LEAD_MS } from "./lead.ts";
import { applies, bucketKey, type RateLimitScopeKind } from "./ratelimit/keys.ts";
import type { ObservedBucket } from "./ratelimit/observed.ts";
import { ReportedLimits } from "./ratelimit/reported.ts";
import { SharedTaker } from "./ratelimit/sharedTake.ts";
import {
  type Acquired,
  type SharedTaken,
  type TakeTry,
  WaiterQueue,
  type WaiterTimers,
} from "./ratelimit/waiters.ts";
import { SlidingWindow } from "./ratelimit/window.ts";

export { defaultRateLimitRoute, rateLimitCall } from "./ratelimit/call.ts";
export { type RateLimitScopeKind, scopeKey } from "./ratelimit/keys.ts";
export type { Acquired, SharedTaken, WaiterTimers } from "./ratelimit/waiters.ts";

/** Options of {@link RateLimitScheduler}. */
export type RateLimitSchedulerOptions = {
  /**
   * Extra ms before a spent token comes back, and after a reported reset: the cover of a call
   * that is not re-counted at its answer (live previews and edits), and of any call until its
   * answer.
   * @defaultValue 1 % of the interval + 1 ms
   */
  marginMs?: (intervalMs: number) => number;
  /**
   * Extra ms after the answer before the token of a call re-counted at its answer
   * ({@link RateLimitScheduler.settle}) comes back: the platform counted the call before it
   * answered, so this only covers the clocks' ms rounding.
   * @defaultValue 1
   */
  answerMarginMs?: number;
  /** Clock of {@link RateLimitScheduler.acquire} (epoch ms). @defaultValue Date.now */
  clock?: () => number;
  /** Timers of {@link RateLimitScheduler.acquire}'s line. @defaultValue the global timers (unref'd) */
  timers?: WaiterTimers;
  /**
   * Keep the declared buckets of {@link RateLimitScheduler.acquire} in the store, shared by
   * every process on it (`MessageStateStore.sharedLimits`, PostgreSQL). Header feedback and
   * 429 pauses stay per process; so do the buckets of {@link RateLimitScheduler.reserve}
   * (live previews).
   */
  shared?: SharedLimitStore | undefined;
};

const defaultTimers: WaiterTimers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** Reserve/observe/pause operations between two sweeps of forgotten state. */
const SWEEP_EVERY = 512;

/**
 * Token buckets per scope key, the buckets the platform reported, and pauses after 429s.
 *
 * @example
 * const call = rateLimitCall(adapter, intent, { operation: "send", target, unitKind: "text" });
 * const wait = scheduler.reserve(adapter.capabilities.rateLimits ?? [], call, Date.now());
 * if (wait > 0) await sleep(wait); // nothing was taken; reserve again after waiting
 */
export class RateLimitScheduler {
  readonly #windows = new Map<string, SlidingWindow>();
  /** Header feedback and 429 pauses (per process). */
  readonly #reported = new ReportedLimits();
  /** The last tokens {@link reserve} took for a call object, until {@link settleReserved}. */
  readonly #reserved = new WeakMap<
    RateLimitCall,
    { scopes: readonly RateLimitScope[]; at: number }
  >();
  readonly #margin: (intervalMs: number) => number;
  readonly #answerMargin: number;
  readonly #line: WaiterQueue;
  readonly #shared: SharedLimitStore | undefined;
  /** The take of shared tokens, when the buckets are in the store. */
  readonly #sharedTaker: SharedTaker | undefined;
  readonly #clock: () => number;
  /** The lead (ms) of the last {@link acquire} that asked for one: waiters wake that early. */
  #lead = 0;
  #ops = 0;

  constructor(options: RateLimitSchedulerOptions = {}) {
    this.#margin = options.marginMs ?? ((intervalMs) => Math.ceil(intervalMs * 0.01) + 1);
    this.#answerMargin = Math.max(0, options.answerMarginMs ?? 1);
    this.#clock = options.clock ?? Date.now;
    this.#line = new WaiterQueue(this.#clock, options.timers ?? defaultTimers);
    this.#shared = options.shared;
    this.#sharedTaker = options.shared
      ? new SharedTaker(options.shared, this.#reported, this.#margin, this.#clock)
      : undefined;
  }

  /** True when declared buckets are kept in the store (shared by every process on it). */
  get shared(): boolean {
    return this.#shared !== undefined;
  }

  /** Calls waiting in {@link acquire}'s line. */
  get waiting(): number {
    return this.#line.size;
  }

  /**
   * Waits in line for one token from every bucket that covers the call: first come, first
   * served among the calls whose buckets all have tokens, woken by one timer exactly when the
   * earliest bucket refills (no polling, no sleeping per call).
   *
   * @param options.maxWaitMs - give up when the wait would end later than this (ms from now).
   * @param options.leadMs - take tokens that come back within this many ms, as of when they
   *   come back: `takenAt` is then up to `leadMs` ahead, and the call must not start before it
   *   (the caller's writes before the call overlap the wait). Buckets shared in the store add
   *   the take's own round trip to it (the take overlaps the wait too; each part at most
   *   `MAX_LEAD_MS`, so a `sending` row still waits at most that long for its call), also to a
   *   `leadMs` of 0 (none when it is absent). Not for 429 pauses, reported buckets, or a token whose call has not answered yet
   *   (it is re-counted at the answer, {@link settle}). @defaultValue 0
   * @returns `{ waitMs: 0, takenAt }` (epoch ms, for {@link restamp}; with a lead possibly
   *   ahead of now: start the call no earlier) once the tokens were taken; `{ waitMs }` (ms, ≥ 1; nothing taken) when the wait is longer than `maxWaitMs` or
   *   `options.signal` aborted.
   */
  acquire(
    scopes: readonly RateLimitScope[],
    call: RateLimitCall,
    options: { maxWaitMs: number; signal?: AbortSignal | undefined; leadMs?: number | undefined },
  ): Promise<Acquired> {
    const asked = Math.max(0, options.leadMs ?? 0);
    // Shared: the take's round trip overlaps the wait too — for a caller that waits out a
    // lead (passed one, 0 included).
    const lead =
      this.#shared && options.leadMs !== undefined
        ? Math.min(MAX_LEAD_MS, asked) +
          Math.min(MAX_LEAD_MS, Math.floor(this.#sharedTaker?.rttMs ?? 0))
        : asked;
    if (!this.#shared && (lead > 0 || this.#lead > 0)) this.#lead = lead;
    const { take, buckets } = this.#taker(scopes, call, lead);
    return this.#line.acquire(take, buckets, options.maxWaitMs, options.signal);
  }

  /**
   * Like {@link acquire} without waiting: takes the tokens now when they are there and no
   * earlier waiter is held by one of the call's buckets. @returns `{ waitMs: 0, takenAt }`, or
   * `{ waitMs }` (ms; nothing taken).
   */
  tryAcquire(scopes: readonly RateLimitScope[], call: RateLimitCall): Promise<Acquired> {
    const { take, buckets } = this.#taker(scopes, call);
    return this.#line.tryNow(take, buckets);
  }

  #taker(
    scopes: readonly RateLimitScope[],
    call: RateLimitCall,
    leadMs = 0,
  ): { take: (now: number) => TakeTry | Promise<TakeTry>; buckets: string[] } {
    const buckets = [
      ...scopes.filter((s) => applies(s, call)).map((s) => bucketKey(s, call)),
      this.#reported.bucketOf(call),
    ];
    const shared = this.#sharedTaker;
    const take = shared
      ? (now: number) => {
          this.#tick(now);
          return shared.take(scopes, call, now, leadMs);
        }
      : (now: number): TakeTry => {
          this.#tick(now);
          const { wait, windows, observed, blockedBy, hard } = this.#wait(scopes, call, now);
          // Within the lead, the tokens are taken as of when they come back: the caller starts
          // its call no earlier than that (`takenAt`), after the writes it makes first. Not the
          // token of a call still in flight: it is re-counted at its answer, maybe later.
          const lead = hard > 0 || windows.some((w) => w.headOpen(now)) ? 0 : leadMs;
          if (wait > lead) return { waitMs: wait - lead, blockedBy };
          const at = now + Math.max(0, wait);
          for (const w of windows) w.takeAhead(now, at, this.#margin(w.intervalMs));
          observed?.take(now);
          return at > now ? { waitMs: 0, at } : { waitMs: 0 };
        };
    return { take, buckets };
  }

  /** Like {@link reserve} but takes nothing: how many ms until the call could go (0 = now). */
  peek(scopes: readonly RateLimitScope[], call: RateLimitCall, now: number): number {
    return this.#wait(scopes, call, now).wait;
  }

  /**
   * Takes one token from every bucket that covers the call, or none.
   *
   * @param scopes - the declared limits (`capabilities.rateLimits`, plus live's edit rate).
   * @param now - epoch ms.
   * @returns 0 when the tokens were taken (call the platform now); otherwise how many ms to
   * wait before asking again (nothing was taken).
   */
  reserve(scopes: readonly RateLimitScope[], call: RateLimitCall, now: number): number {
    this.#tick(now);
    const { wait, windows, observed } = this.#wait(scopes, call, now);
    if (wait > 0) return wait;
    for (const w of windows) w.take(now, this.#margin(w.intervalMs));
    observed?.take(now);
    if (windows.length > 0) this.#reserved.set(call, { scopes, at: now });
    return 0;
  }

  /**
   * {@link settle} for the tokens the last {@link reserve} of this very `call` object took
   * (live previews and edits re-count their call at its answer this way); nothing when none
   * are out, or they were settled already.
   *
   * @param answeredAt - epoch ms when the answer (or error) arrived.
   */
  settleReserved(call: RateLimitCall, answeredAt: number): void {
    const reserved = this.#reserved.get(call);
    if (!reserved) return;
    this.#reserved.delete(call);
    this.settle(reserved.scopes, call, reserved.at, answeredAt);
  }

  /**
   * Moves tokens taken by {@link reserve} at `takenAt` to `now`, when the platform call starts a
   * little later (after the `sending` write): the platform counts the call when it arrives, so
   * the token returns an interval after that, not after the reservation.
   *
   * @param takenAt - the `now` the tokens were reserved with (epoch ms).
   * @param now - epoch ms, at least `takenAt`.
   */
  restamp(
    scopes: readonly RateLimitScope[],
    call: RateLimitCall,
    takenAt: number,
    now: number,
  ): void {
    if (now <= takenAt) return;
    for (const scope of scopes) {
      if (!applies(scope, call)) continue;
      const w = this.#windows.get(bucketKey(scope, call));
      if (!w) continue;
      const span = w.intervalMs + this.#margin(w.intervalMs);
      w.move(takenAt + span, now + span);
    }
  }

  /**
   * Counts a platform call made in the past — by the process this one replaced (a restart
   * seeds its buckets from the store's recent writes) — as one token of every declared bucket
   * that covers it, taken and answered at `answeredAt`: it comes back an interval +
   * `answerMarginMs` after that, as a settled call's would ({@link settle}). Never waits and
   * never wakes anyone; tokens that came back by `now` are not recorded. In-memory buckets only:
   * buckets shared in the store (`shared`) survive a restart by themselves.
   *
   * @param answeredAt - epoch ms when the call was answered (or last written about).
   * @param now - epoch ms. @defaultValue the scheduler's clock
   */
  recordPast(
    scopes: readonly RateLimitScope[],
    call: RateLimitCall,
    answeredAt: number,
    now: number = this.#clock(),
  ): void {
    // A call "answered" later than now (the predecessor's clock ran ahead) counts as answered
    // now: at most one window, never the skew.
    const at = Math.min(answeredAt, now);
    for (const scope of scopes) {
      if (!applies(scope, call)) continue;
      const freeAt = at + scope.intervalMs + this.#answerMargin;
      if (freeAt <= now) continue;
      const key = bucketKey(scope, call);
      let w = this.#windows.get(key);
      if (!w) {
        w = new SlidingWindow(scope.limit, scope.intervalMs);
        this.#windows.set(key, w);
      }
      w.record(now, freeAt);
    }
  }

  /**
   * Gives back the tokens {@link tryAcquire} or {@link acquire} took at `takenAt` for a call
   * that will not be made after all (the folded first attempt of `runtime.send` found a backlog
   * ahead of it), and lets waiters take them. Tokens of buckets shared in the store are not
   * given back (the fold does not take them; see `delivery/fold.ts`).
   *
   * @param takenAt - the `takenAt` the tokens were taken with (epoch ms).
   */
  refund(scopes: readonly RateLimitScope[], call: RateLimitCall, takenAt: number): void {
    for (const scope of scopes) {
      if (!applies(scope, call)) continue;
      const w = this.#windows.get(bucketKey(scope, call));
      w?.untake(takenAt + w.intervalMs + this.#margin(w.intervalMs));
    }
    this.#reported.observed(this.#reported.bucketOf(call))?.untake(takenAt);
    this.#line.wake();
  }

  /**
   * Called when the platform answered a call whose tokens were stamped `startedAt`: the
   * platform counted the call somewhere between its start and `answeredAt`, so its tokens come
   * back an interval + `answerMarginMs` after `answeredAt` — later than the blanket margin when
   * the call was slow (a call stalled between start and arrival — a busy event loop, a slow
   * connect — cannot make the next one arrive early), earlier when it was quick (the margin
   * only covered the answer not being known yet).
   *
   * Tokens shared in the store only ever move later (`SharedLimitStore.settleTokens`): they come
   * back `answeredAt` + interval, or the blanket margin after the take when that is later.
   *
   * @param startedAt - the stamp the tokens carry (from {@link acquire} or {@link restamp}).
   * @param answeredAt - epoch ms when the answer (or error) arrived.
   */
  settle(
    scopes: readonly RateLimitScope[],
    call: RateLimitCall,
    startedAt: number,
    answeredAt: number,
    shared?: SharedTaken,
  ): void {
    let delay = 0;
    let earliest = Number.POSITIVE_INFINITY;
    for (const scope of scopes) {
      if (!applies(scope, call)) continue;
      const margin = this.#margin(scope.intervalMs);
      if (shared) {
        const at = answeredAt + this.#answerMargin - margin;
        delay = Math.max(delay, Math.max(at, startedAt) - shared.takenAt);
        continue;
      }
      const w = this.#windows.get(bucketKey(scope, call));
      if (!w) continue;
      const to = answeredAt + w.intervalMs + this.#answerMargin;
      const from = startedAt + w.intervalMs + margin;
      w.move(from, to, true);
      // Earlier, or now open to a lead: the waiters may go sooner than the line was told.
      earliest = Math.min(earliest, to);
    }
    // A token back sooner than the line was told: serve the waiters then, not at the old time.
    // (as early as the waiters' lead: they take a token that is about to come back).
    if (Number.isFinite(earliest)) this.#line.wakeBy(earliest - this.#lead);
    // A settle that fails leaves the tokens where they were taken (a call that ends within its
    // window is then counted from its start, as without a store).
    // Settled even with no delay: the store may then take them ahead (a lead).
    if (shared && this.#shared && shared.tokens.length > 0) {
      this.#shared.settleTokens(shared.tokens, Math.max(0, delay)).catch(() => {});
    }
  }

  /**
   * Records what the platform's response said about the call's bucket (header feedback). With
   * `bucket`, the call's route joins that bucket (shared with other routes reported in it).
   * A report without both `remaining` and `resetAfterMs` only maps the route.
   *
   * @param now - epoch ms when the response arrived.
   */
  observe(call: RateLimitCall, feedback: RateLimitFeedback, now: number): void {
    this.#tick(now);
    // A new window may let waiters go sooner.
    if (this.#reported.observe(call, feedback, now, this.#margin) && this.#line.size > 0) {
      this.#line.wake();
    }
  }

  /** How long (ms) the call is paused by a 429, 0 when not paused. */
  pausedMs(call: RateLimitCall, now: number): number {
    return this.#reported.pausedMs(call, this.#reported.bucketOf(call), now);
  }

  /**
   * Pauses one scope after the platform answered 429: `route` (the route that was hit, and the
   * routes sharing its reported bucket), `chat`, `thread`, or `account` (every call of the bot).
   *
   * @param untilMs - epoch ms when calls may resume.
   */
  pause(kind: RateLimitScopeKind, call: RateLimitCall, untilMs: number): void {
    this.#reported.pause(kind, call, untilMs);
  }

  #wait(
    scopes: readonly RateLimitScope[],
    call: RateLimitCall,
    now: number,
  ): {
    wait: number;
    windows: SlidingWindow[];
    observed: ObservedBucket | undefined;
    blockedBy: string | undefined;
    /** The part of `wait` that is a 429 pause or a reported bucket (no lead applies to it). */
    hard: number;
  } {
    const bucket = this.#reported.bucketOf(call);
    let wait = this.#reported.pausedMs(call, bucket, now);
    let hard = wait;
    let blockedBy: string | undefined;
    const windows: SlidingWindow[] = [];
    for (const scope of scopes) {
      if (!applies(scope, call)) continue;
      const key = bucketKey(scope, call);
      let w = this.#windows.get(key);
      if (!w) {
        w = new SlidingWindow(scope.limit, scope.intervalMs);
        this.#windows.set(key, w);
      }
      const w2 = w.waitMs(now);
      if (w2 > wait) {
        wait = w2;
        blockedBy = key;
      }
      windows.push(w);
    }
    const observed = this.#reported.observed(bucket);
    if (observed) {
      const w2 = observed.waitMs(now);
      hard = Math.max(hard, w2);
      if (w2 > wait) {
        wait = w2;
        blockedBy = bucket;
      }
    }
    return { wait, windows, observed, blockedBy, hard };
  }

  /** Forgets idle windows, reset buckets and past pauses now and then (memory stays bounded). */
  #tick(now: number): void {
    this.#ops += 1;
    if (this.#ops % SWEEP_EVERY !== 0) return;
    for (const [key, w] of this.#windows) if (w.idle(now)) this.#windows.delete(key);
    this.#reported.sweep(now);
  }
}
