/**
 * Typing / working indicators (seed "Live context"): shown at start, repeated every
 * `refreshMs` of the adapter, and stopped on every exit path — or at the hard TTL counted from
 * the start, whatever happened in between. Indicator calls run in the background: a failing or
 * hanging call never extends the TTL, never delays a send, and never throws to the caller.
 * `stop()` aborts a call in flight (its `ctx.signal`) and resolves once that call settled (or
 * a short grace passed) and the indicator was hidden: nothing is sent for it afterwards, so a
 * typing call never lands after the reply that follows (Telegram would show "typing…" under it).
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

/**
 * Longest `stop()` waits for an aborted call in flight to settle, in ms (an adapter that ignores
 * its signal cannot hold a reply back longer than this).
 */
export const TYPING_STOP_GRACE_MS = 1_000;

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
  /** The call in flight: its abort controller and its settlement. */
  #inFlight: { controller: AbortController; done: Promise<void> } | undefined;
  #state: "idle" | "active" | "stopped" = "idle";
  #stopping: Promise<void> | undefined;
  #halted: Promise<void> | undefined;

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
    if (this.#state !== "active" || this.#inFlight) return;
    const controller = new AbortController();
    const call = { controller, done: Promise.resolve() };
    call.done = this.#adapter
      .start({ ...this.#ctx, signal: controller.signal })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        this.#log.debug({ err: error }, "typing indicator call failed (ignored)");
      })
      .finally(() => {
        if (this.#inFlight === call) this.#inFlight = undefined;
      });
    this.#inFlight = call;
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

  /**
   * Stops refreshing, aborts a call in flight and waits for it to settle (at most
   * {@link TYPING_STOP_GRACE_MS}), then hides the indicator when the platform can. Once it
   * resolves nothing more is sent for this indicator. Idempotent; never throws.
   */
  stop(): Promise<void> {
    if (this.#stopping) return this.#stopping;
    const wasActive = this.#state === "active";
    this.#state = "stopped";
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    const inFlight = this.#inFlight;
    inFlight?.controller.abort(new Error("typing indicator stopped"));
    const hide = this.#adapter.stop;
    this.#halted = inFlight
      ? this.#settleWithin(inFlight.done, TYPING_STOP_GRACE_MS)
      : Promise.resolve();
    this.#stopping = this.#halted.then(async () => {
      if (!wasActive || !hide) return;
      await hide({ ...this.#ctx, signal: new AbortController().signal }).catch((error: unknown) => {
        this.#log.debug({ err: error }, "typing indicator stop failed (ignored)");
      });
    });
    return this.#stopping;
  }

  /**
   * Stops the indicator and resolves once no `start` call can still be sent (the call in flight
   * settled or the grace passed), without waiting for the platform to hide it. What a reply
   * awaits before it is sent.
   */
  halt(): Promise<void> {
    void this.stop();
    return this.#halted ?? Promise.resolve();
  }

  /** Resolves when `work` settled or `ms` passed (on the live timers), whichever is first. */
  #settleWithin(work: Promise<void>, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = unref(this.#timers.setTimeout(resolve, ms));
      void work.finally(() => {
        this.#timers.clearTimeout(timer);
        resolve();
      });
    });
  }
}
