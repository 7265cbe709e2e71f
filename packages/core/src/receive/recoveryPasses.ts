/**
 * When inbound recovery passes run (DESIGN §5; `recover.ts` does one pass). A pass over every
 * channel with an adapter runs at `start()`, one pass runs for a channel whose adapter is
 * registered after `start()`, and a pass over every channel runs every `intervalMs`.
 *
 * The pass for a channel registered later is what recovers a gateway's accounts: the gateway
 * starts the runtime first and opens its accounts (`createAccount`, then `addAdapter`) after,
 * so the `start()` pass sees none of them. Without it, messages a crash interrupted after the
 * platform was answered waited for the periodic pass (30 s after the restart).
 *
 * Passes never overlap: a request made while one runs is served by the next one, which starts
 * as soon as the running one ends (a periodic request is dropped instead).
 *
 * @module
 */
import type { HeraldLogger } from "../logger.ts";
import type { ReceiveRecoverReport } from "./types.ts";

/** What {@link InboundRecoveryPasses} needs. */
export type RecoveryPassDeps = {
  /** One pass over `channels` (`ReceiveRuntime.recover`). */
  recover(channels: readonly string[]): Promise<ReceiveRecoverReport>;
  /** Channels with an adapter now. */
  channels(): string[];
  log: HeraldLogger;
  /** Period of the pass over every channel, ms. */
  intervalMs: number;
};

const sum = (a: ReceiveRecoverReport, b: ReceiveRecoverReport): ReceiveRecoverReport => ({
  redispatched: a.redispatched + b.redispatched,
  processed: a.processed + b.processed,
  deadLettered: a.deadLettered + b.deadLettered,
  held: a.held + b.held,
});

/** Schedules the inbound recovery passes of one runtime. */
export class InboundRecoveryPasses {
  readonly #deps: RecoveryPassDeps;
  #started = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running = false;
  readonly #queued = new Set<string>();
  /** The next pass serves a request of `start()` or of an adapter registration. */
  #urgentQueued = false;
  #urgentRunning = false;
  /** Sum of the reports of those passes; `undefined` once one of them failed. */
  #report: ReceiveRecoverReport | undefined;
  #waiters: ((report: ReceiveRecoverReport | undefined) => void)[] = [];

  constructor(deps: RecoveryPassDeps) {
    this.#deps = deps;
  }

  /** Runs the pass over every channel now, then one every `intervalMs`. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#report = { redispatched: 0, processed: 0, deadLettered: 0, held: 0 };
    this.#request(this.#deps.channels(), true);
    this.#timer = setInterval(() => {
      if (!this.#running) this.#request(this.#deps.channels(), false);
    }, this.#deps.intervalMs);
    this.#timer.unref();
  }

  /** An adapter of `channel` was registered: after `start()`, its messages get a pass now. */
  channelAdded(channel: string): void {
    if (this.#started) this.#request([channel], true);
  }

  /** No more passes start (a running one ends on its own). */
  stop(): void {
    this.#started = false;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Whether a pass asked for by `start()` or by an adapter registration is queued or running. */
  get recovering(): boolean {
    return this.#urgentQueued || this.#urgentRunning;
  }

  /**
   * Resolves once no pass asked for by `start()` or by an adapter registration is queued or
   * running, with the sum of their reports since `start()` (`undefined` before `start()`, or
   * when one of them failed: the error is logged).
   */
  settled(): Promise<ReceiveRecoverReport | undefined> {
    if (!this.recovering) return Promise.resolve(this.#report);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #request(channels: readonly string[], urgent: boolean): void {
    if (channels.length === 0 && !urgent) return;
    for (const c of channels) this.#queued.add(c);
    if (urgent) this.#urgentQueued = true;
    if (!this.#running) void this.#run();
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queued.size > 0 || this.#urgentQueued) {
        const channels = [...this.#queued];
        this.#queued.clear();
        this.#urgentRunning = this.#urgentQueued;
        this.#urgentQueued = false;
        try {
          const report = await this.#deps.recover(channels);
          if (this.#urgentRunning && this.#report) this.#report = sum(this.#report, report);
        } catch (err) {
          this.#deps.log.error({ err, channels }, "inbound recovery failed");
          if (this.#urgentRunning) this.#report = undefined;
        } finally {
          this.#urgentRunning = false;
        }
      }
    } finally {
      // Synchronous with the loop's last check: a request made from here on starts a new run.
      this.#running = false;
      const waiters = this.#waiters.splice(0);
      for (const w of waiters) w(this.#report);
    }
  }
}
