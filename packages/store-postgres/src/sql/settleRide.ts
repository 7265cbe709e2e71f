/**
 * Settles of shared rate-limit tokens waiting to ride on the next take statement
 * (`settle_and_take_tokens`, migration 9). A busy gateway takes a token for the next call
 * within milliseconds of each answer, so the answer's settle goes in that statement instead of
 * costing one of its own (the four-process drain spent a statement per message on settles).
 * A settle that no take picks up within `rideMs` is sent alone; so is one whose token's lease
 * ends soon (it must land before another process may take the slot). Durations are ms.
 *
 * @module
 */
import type { Settle } from "./limits.ts";

type Waiting = { settle: Settle; resolve: () => void; reject: (error: unknown) => void };

/** What a take statement carries: the settles it took, and how to report their outcome. */
export type Ride = { settles: Settle[]; done: (error?: unknown) => void };

/** A queue of settles for the next take statement, flushed alone after `rideMs`. */
export class SettleRide {
  readonly #rideMs: number;
  readonly #alone: (settles: Settle[]) => Promise<unknown>;
  #queue: Waiting[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param rideMs - longest wait for a take statement before a settle is sent alone.
   * @param alone - sends settles in a statement of their own.
   */
  constructor(rideMs: number, alone: (settles: Settle[]) => Promise<unknown>) {
    this.#rideMs = rideMs;
    this.#alone = alone;
  }

  /**
   * Queues a settle for the next take statement (resolves once it ran), or sends it alone now
   * when `urgent`.
   */
  push(settle: Settle, urgent: boolean): Promise<void> {
    if (urgent) return this.#alone([settle]).then(() => undefined);
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ settle, resolve, reject });
      this.#timer ??= setTimeout(() => this.#flush(), this.#rideMs);
    });
  }

  /** Hands every queued settle to the statement being built. */
  take(): Ride {
    const taken = this.#queue;
    this.#queue = [];
    this.#clear();
    return {
      settles: taken.map((w) => w.settle),
      done: (error) => {
        for (const w of taken) error === undefined ? w.resolve() : w.reject(error);
      },
    };
  }

  /** Sends what is queued alone now (at close, or when no take came within `rideMs`). */
  flush(): Promise<void> {
    return this.alone(this.take());
  }

  /** Sends a ride's settles alone (its take statement failed, or none came). */
  async alone(ride: Ride): Promise<void> {
    if (ride.settles.length === 0) return;
    try {
      await this.#alone(ride.settles);
      ride.done();
    } catch (error) {
      ride.done(error);
    }
  }

  #flush(): void {
    this.#timer = undefined;
    void this.flush();
  }

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
