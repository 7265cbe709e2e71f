/**
 * Gathers calls into one statement: the calls made in the same tick, and those made while the
 * previous statement is in flight, go together into the next one — no wait when idle (one
 * microtask), and under load one round trip for many calls instead of one each. For writes
 * whose rows do not depend on each other's success beyond what the statement itself orders
 * (rate-limit token takes and settles, enqueues, transitions of distinct intents); each caller
 * gets its own result.
 *
 * @module
 */

type Pending<In, Out> = {
  input: In;
  resolve: (value: Out) => void;
  reject: (error: unknown) => void;
};

/** Options of a {@link StatementBatcher}. */
export type BatcherOptions<In> = {
  /** Most calls per statement (the rest go into the next). @defaultValue 256 */
  max?: number;
  /**
   * Whether a call may join a statement that already holds `taken` (e.g. no intent twice):
   * the first call that may not ends the statement and starts the next. @defaultValue always
   */
  fits?: (input: In, taken: readonly In[]) => boolean;
};

/** One statement at a time for every call queued before it started. */
export class StatementBatcher<In, Out> {
  readonly #run: (inputs: readonly In[]) => Promise<Out[]>;
  readonly #max: number;
  readonly #fits: ((input: In, taken: readonly In[]) => boolean) | undefined;
  #queue: Array<Pending<In, Out>> = [];
  #busy = false;

  /**
   * @param run - runs one statement for the inputs, in call order; returns one output each.
   *   A failure rejects every call of that statement.
   */
  constructor(run: (inputs: readonly In[]) => Promise<Out[]>, options: BatcherOptions<In> = {}) {
    this.#run = run;
    this.#max = options.max ?? 256;
    this.#fits = options.fits;
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

  #next(): Array<Pending<In, Out>> {
    let n = Math.min(this.#max, this.#queue.length);
    if (this.#fits) {
      const taken: In[] = [];
      for (let i = 0; i < n; i++) {
        const input = (this.#queue[i] as Pending<In, Out>).input;
        if (i > 0 && !this.#fits(input, taken)) {
          n = i;
          break;
        }
        taken.push(input);
      }
    }
    return this.#queue.splice(0, n);
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#next();
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
