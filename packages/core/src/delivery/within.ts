/**
 * A wait bounded by a deadline on the runtime's clock: what `runtime.send` and a live
 * `finalize` use so that `waitMs` bounds the delivery attempt they make inline, not only the
 * wait after it.
 *
 * @module
 */

/**
 * Waits for `work` until `deadline` (epoch ms on `clock`, checked at least every 500 ms like
 * `DeliveryWorker.waitFor`). @returns its value, or `done: false` once the deadline passed first
 * (`work` goes on; its rejection is then the caller's to handle).
 */
export async function within<T>(
  work: Promise<T>,
  deadline: number,
  clock: () => number,
): Promise<{ done: true; value: T } | { done: false }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let over = false;
  const expired = new Promise<{ done: false }>((resolve) => {
    const tick = () => {
      if (over) return;
      const left = deadline - clock();
      if (left <= 0) resolve({ done: false });
      else timer = setTimeout(tick, Math.min(left, 500));
    };
    tick();
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), expired]);
  } finally {
    over = true;
    clearTimeout(timer);
  }
}
