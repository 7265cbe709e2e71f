/**
 * What the platform itself reported, kept per process: the buckets its response headers
 * described (`RateLimitFeedback`; each route maps to the bucket it was last reported in, shared
 * with the other routes reported there) and the pauses after 429s, per scope. Part of
 * {@link RateLimitScheduler}; never shared in the store. All times are epoch ms.
 *
 * @module
 */
import type { RateLimitCall, RateLimitFeedback } from "../../message/rateLimit.ts";
import { observedKey, type RateLimitScopeKind, routeKey, scopeKey } from "./keys.ts";
import { hasWindow, ObservedBucket } from "./observed.ts";

/** Reported buckets and 429 pauses. */
export class ReportedLimits {
  readonly #observed = new Map<string, ObservedBucket>();
  /** route key → the platform bucket it was last reported in. */
  readonly #routeBucket = new Map<string, string>();
  readonly #pausedUntil = new Map<string, number>();

  /** The key of the call's reported bucket: its route's own until a report maps the route. */
  bucketOf(call: RateLimitCall): string {
    const reported = this.#routeBucket.size > 0 ? this.#routeBucket.get(routeKey(call)) : undefined;
    return observedKey(call, reported ?? `route:${call.route}`);
  }

  /** What is known of the reported bucket `bucket` ({@link bucketOf}), if anything. */
  observed(bucket: string): ObservedBucket | undefined {
    return this.#observed.size > 0 ? this.#observed.get(bucket) : undefined;
  }

  /**
   * Records a response's feedback (see `RateLimitScheduler.observe`).
   * @param now - epoch ms when the response arrived.
   * @param marginMs - the extra ms after a reported reset.
   * @returns true when a window was recorded (waiters may be able to go sooner).
   */
  observe(
    call: RateLimitCall,
    feedback: RateLimitFeedback,
    now: number,
    marginMs: (intervalMs: number) => number,
  ): boolean {
    if (feedback.bucket) this.#routeBucket.set(routeKey(call), feedback.bucket);
    if (!hasWindow(feedback)) return false;
    const key = this.bucketOf(call);
    const resetAt = now + feedback.resetAfterMs + marginMs(feedback.resetAfterMs);
    const remaining = Math.max(0, Math.floor(feedback.remaining));
    const known = this.#observed.get(key);
    if (known) known.update(remaining, resetAt, now, marginMs(feedback.resetAfterMs));
    else this.#observed.set(key, new ObservedBucket(remaining, resetAt));
    return true;
  }

  /** How long (ms) a 429 pause holds the call (its account, chat, thread or `bucket`), 0 if none. */
  pausedMs(call: RateLimitCall, bucket: string, now: number): number {
    if (this.#pausedUntil.size === 0) return 0;
    let wait = 0;
    for (const key of [
      scopeKey("account", call),
      scopeKey("chat", call),
      scopeKey("thread", call),
      `pause:${bucket}`,
    ]) {
      const until = this.#pausedUntil.get(key);
      if (until !== undefined) wait = Math.max(wait, until - now);
    }
    return wait;
  }

  /** Pauses one scope of the call until `untilMs` (see `RateLimitScheduler.pause`). */
  pause(kind: RateLimitScopeKind, call: RateLimitCall, untilMs: number): void {
    const key = kind === "route" ? `pause:${this.bucketOf(call)}` : scopeKey(kind, call);
    this.#pausedUntil.set(key, Math.max(this.#pausedUntil.get(key) ?? 0, untilMs));
  }

  /** Forgets reset buckets, past pauses, and route mappings to neither (memory stays bounded). */
  sweep(now: number): void {
    for (const [key, b] of this.#observed) if (b.expired(now)) this.#observed.delete(key);
    for (const [key, until] of this.#pausedUntil) if (until <= now) this.#pausedUntil.delete(key);
    for (const [route, bucket] of this.#routeBucket) {
      const [, channel = "", accountId = ""] = route.split("\u0000");
      const key = observedKey({ channel, accountId }, bucket);
      if (!this.#observed.has(key) && !this.#pausedUntil.has(`pause:${key}`)) {
        this.#routeBucket.delete(route);
      }
    }
  }
}
