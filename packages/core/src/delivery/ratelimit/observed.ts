/**
 * What the platform's response headers said about a bucket (`remaining`, `resetAfterMs`,
 * Discord's `X-RateLimit-*`), kept per reported bucket. Calls let through after the report
 * count down `remaining` locally; at 0 the route waits until the window resets. All times are
 * epoch ms.
 *
 * @module
 */
import type { RateLimitFeedback } from "../../message/rateLimit.ts";

/** The known state of one platform bucket. */
export class ObservedBucket {
  remaining: number;
  /** Epoch ms when the platform's window resets (margin included). */
  resetAt: number;

  constructor(remaining: number, resetAt: number) {
    this.remaining = remaining;
    this.resetAt = resetAt;
  }

  /** How many ms until a call may go on this bucket (0 = now). */
  waitMs(now: number): number {
    if (now >= this.resetAt || this.remaining > 0) return 0;
    return this.resetAt - now;
  }

  /** Counts one call let through. */
  take(now: number): void {
    if (now < this.resetAt) this.remaining -= 1;
  }

  /** Gives back a call counted by {@link take} at `takenAt` that was not made after all. */
  untake(takenAt: number): void {
    if (takenAt < this.resetAt) this.remaining += 1;
  }

  /** True when the window has reset: nothing is known any more. */
  expired(now: number): boolean {
    return now >= this.resetAt;
  }

  /**
   * Merges a new report. A report of the same window cannot see calls still in flight, so the
   * lower `remaining` wins; a report of a later window replaces the state.
   *
   * @param resetAt - epoch ms of the reported reset, margin included.
   * @param toleranceMs - resets closer than this count as the same window.
   */
  update(remaining: number, resetAt: number, now: number, toleranceMs: number): void {
    const sameWindow = now < this.resetAt && resetAt <= this.resetAt + toleranceMs;
    this.remaining = sameWindow ? Math.min(this.remaining, remaining) : remaining;
    this.resetAt = sameWindow ? Math.max(this.resetAt, resetAt) : resetAt;
  }
}

/** True when a feedback report carries a usable window (`remaining` and `resetAfterMs`). */
export function hasWindow(
  feedback: RateLimitFeedback,
): feedback is RateLimitFeedback & { remaining: number; resetAfterMs: number } {
  return (
    typeof feedback.remaining === "number" &&
    Number.isFinite(feedback.remaining) &&
    typeof feedback.resetAfterMs === "number" &&
    Number.isFinite(feedback.resetAfterMs) &&
    feedback.resetAfterMs >= 0
  );
}
