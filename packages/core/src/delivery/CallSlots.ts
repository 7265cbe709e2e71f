/**
 * The runtime's bound on platform calls in flight (`delivery.concurrency`, DESIGN §4): one pool
 * of slots shared by every path that calls a platform — the delivery worker's attempts (the
 * loop's and `runtime.send`'s inline ones), sends without an intent (`durability: "disabled"`,
 * `best_effort` with the store down) and live sessions' preview, edit, stream and delete calls.
 * Slots are handed out first come, first served.
 *
 * @module
 */

/** A counting semaphore over `limit` slots (FIFO). */
export class CallSlots {
  readonly limit: number;
  #active = 0;
  readonly #waiters: (() => void)[] = [];

  /** @param limit - slots, at least 1 (`delivery.concurrency`). */
  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  /** Slots taken now. */
  get active(): number {
    return this.#active;
  }

  /** Callers waiting for a slot now. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Waits for a slot; give it back with {@link release}. */
  acquire(): Promise<void> {
    if (this.#active < this.limit) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Takes a slot when one is free and nobody waits for one (never queues).
   * @returns true when a slot was taken; give it back with {@link release}.
   */
  tryAcquire(): boolean {
    if (this.#active >= this.limit || this.#waiters.length > 0) return false;
    this.#active++;
    return true;
  }

  /** Hands the slot to the next waiter, or frees it. */
  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#active = Math.max(0, this.#active - 1);
  }

  /** Runs `fn` holding one slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}
