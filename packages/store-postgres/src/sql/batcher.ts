/**
 * Gathers calls into one statement: the calls made in the same tick, and those made while the
 * previous statement is in flight, go together into the next one — no wait when idle (one
 * microtask), and under load one round trip for many calls instead of one each. For writes
 * whose rows do not depend on each other's success beyond what the statement itself orders
 * (rate-limit token takes and settles); each caller gets its own result.
 *
 * @module
 */

type Pending<In, Out> = {
  input: In;
  resolve: (value: Out) => void;
  reject: (error: unknown) => void;
};

/** One statement at a time for every call queued before it started. */
export class StatementBatcher<In, Out> {
  readonly #run: (inputs: readonly In[]) => Promise<Out[]>;
  readonly #max: number;
  #queue: Array<Pending<In, Out>> = [];
  #busy = false;

  /**
   * @param run - runs one statement for the inputs, in call order; returns one output each.
   *   A failure rejects every call of that statement.
   * @param max - most calls per statement (the rest go into the next).
   */
  constructor(run: (inputs: readonly In[]) => Promise<Out[]>, max = 256) {
    this.#run = run;
    this.#max = max;
  }

  /** Queues a call for the next statement. */
  push(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      if (!this.#busy) {
        this.#busy = true;
        queueMicrotask(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#max);
      try {
        const out = await this.#run(batch.map((p) => p.input));
        for (const [i, p] of batch.entries()) p.resolve(out[i] as Out);
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    this.#busy = false;
  }
}
