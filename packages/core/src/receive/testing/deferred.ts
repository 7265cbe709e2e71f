/**
 * A promise with its resolve/reject outside, for handlers a test holds open.
 *
 * @module
 */

/** A promise and the functions settling it. */
export type Deferred<T = void> = {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
};

/** Creates a {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks (and one macrotask) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
