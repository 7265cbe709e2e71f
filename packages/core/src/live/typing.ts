/**
 * Typing / working indicators (seed "Live context"): shown at start, repeated every
 * `refreshMs` of the adapter, and stopped on every exit path — or at the hard TTL counted from
 * the start, whatever happened in between. Indicator calls run in the background: a failing or
 * hanging call never extends the TTL, never delays a send, and never throws to the caller.
 *
 * @module
 */
import type { MessageTypingAdapter } from "../adapter/live.ts";
import type { MessageSendContext } from "../adapter/types.ts";
import type { HeraldLogger } from "../logger.ts";
import { unref } from "./timers.ts";
import type { LiveTimers, TypingHandle } from "./types.ts";

/** Default hard TTL of a typing indicator, in ms. */
export const DEFAULT_TYPING_TTL_MS = 60_000;

/** A typing indicator for one chat. Create it, then `start()`; `stop()` is idempotent. */
export class TypingIndicator implements TypingHandle {
  readonly #adapter: MessageTypingAdapter;
  readonly #ctx: MessageSendContext;
  readonly #clock: () => number;
  readonly #timers: LiveTimers;
  readonly #ttlMs: number;
  readonly #log: HeraldLogger;
  #startedAt = 0;
  #timer: unknown;
  #calling = false;
  #state: "idle" | "active" | "stopped" = "idle";
  #stopping: Promise<void> | undefined;

  /** @param p.ttlMs - hard limit in ms from `start()`. @defaultValue 60_000 */
  constructor(p: {
    adapter: MessageTypingAdapter;
    ctx: MessageSendContext;
    clock: () => number;
    timers: LiveTimers;
    ttlMs?: number | undefined;
    log: HeraldLogger;
  }) {
    this.#adapter = p.adapter;
    this.#ctx = p.ctx;
    this.#clock = p.clock;
    this.#timers = p.timers;
    this.#ttlMs = p.ttlMs ?? DEFAULT_TYPING_TTL_MS;
    this.#log = p.log;
  }

  get active(): boolean {
    return this.#state === "active";
  }

  /** Shows the indicator now and keeps it up until `stop()` or the TTL. Returns at once. */
  start(): this {
    if (this.#state !== "idle") return this;
    this.#state = "active";
    this.#startedAt = this.#clock();
    this.#show();
    this.#schedule();
    return this;
  }

  #show(): void {
    // One call at a time: a hanging call is not stacked, and it does not move the schedule.
    if (this.#state !== "active" || this.#calling) return;
    this.#calling = true;
    this.#adapter
      .start(this.#ctx)
      .catch((error: unknown) => {
        this.#log.debug({ err: error }, "typing indicator call failed (ignored)");
      })
      .finally(() => {
        this.#calling = false;
      });
  }

  /** Next wake-up: the next refresh on the fixed grid from the start, or the TTL. */
  #schedule(): void {
    const now = this.#clock();
    const deadline = this.#startedAt + this.#ttlMs;
    if (now >= deadline) {
      void this.stop();
      return;
    }
    const refresh = Math.max(1, this.#adapter.refreshMs);
    const nextRefresh =
      this.#startedAt + (Math.floor((now - this.#startedAt) / refresh) + 1) * refresh;
    const at = Math.min(nextRefresh, deadline);
    this.#timer = unref(
      this.#timers.setTimeout(() => {
        this.#timer = undefined;
        if (this.#state !== "active") return;
        if (this.#clock() >= deadline) {
          void this.stop();
          return;
        }
        this.#show();
        this.#schedule();
      }, at - now),
    );
  }

  /** Hides the indicator (when the platform can) and stops refreshing. Idempotent; never throws. */
  stop(): Promise<void> {
    if (this.#stopping) return this.#stopping;
    const wasActive = this.#state === "active";
    this.#state = "stopped";
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    const hide = this.#adapter.stop;
    this.#stopping =
      wasActive && hide
        ? hide(this.#ctx).catch((error: unknown) => {
            this.#log.debug({ err: error }, "typing indicator stop failed (ignored)");
          })
        : Promise.resolve();
    return this.#stopping;
  }
}
