/**
 * The runtime's bound on platform calls in flight (`delivery.concurrency`, DESIGN §4): one pool
 * of slots shared by every path that calls a platform — the delivery worker's attempts (the
 * loop's and `runtime.send`'s inline ones), sends without an intent (`durability: "disabled"`,
 * `best_effort` with the store down) and live sessions' preview, edit, stream and delete calls.
 * Slots are handed out first come, first served, except that the attempts the worker leased
 * ahead queue behind every other caller: they wait for a slot the worker did not need yet, and
 * without leasing ahead they would not be waiting at all.
 *
 * @module
 */

/** How a caller waits in {@link CallSlots.acquire}. */
export type SlotWait = {
  /**
   * Served only when no other caller waits (the delivery worker's attempts leased ahead).
   * @defaultValue false
   */
  behind?: boolean;
  /** Stops waiting when aborted: `acquire` resolves false and takes no slot. */
  signal?: AbortSignal;
};

/** A counting semaphore over `limit` slots (FIFO, in two lines: see {@link SlotWait}). */
export class CallSlots {
  readonly limit: number;
  #active = 0;
  readonly #waiters: (() => void)[] = [];
  /** Waiters with `behind`: served when `#waiters` is empty. */
  readonly #behind: (() => void)[] = [];

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
    return this.#waiters.length + this.#behind.length;
  }

  /**
   * Waits for a slot; give it back with {@link release}.
   * @returns true when a slot was taken; false when `wait.signal` was aborted first.
   */
  acquire(wait: SlotWait = {}): Promise<boolean> {
    const { signal } = wait;
    if (signal?.aborted) return Promise.resolve(false);
    if (this.#active < this.limit) {
      this.#active++;
      return Promise.resolve(true);
    }
    const line = wait.behind ? this.#behind : this.#waiters;
    return new Promise((resolve) => {
      const served = () => {
        signal?.removeEventListener("abort", aborted);
        resolve(true);
      };
      const aborted = () => {
        const i = line.indexOf(served);
        if (i >= 0) line.splice(i, 1);
        resolve(false);
      };
      line.push(served);
      signal?.addEventListener("abort", aborted, { once: true });
    });
  }

  /**
   * Takes a slot when one is free and nobody waits for one (never queues).
   * @returns true when a slot was taken; give it back with {@link release}.
   */
  tryAcquire(): boolean {
    if (this.#active >= this.limit || this.waiting > 0) return false;
    this.#active++;
    return true;
  }

  /** Hands the slot to the next waiter, or frees it. */
  release(): void {
    const next = this.#waiters.shift() ?? this.#behind.shift();
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
