/**
 * A wait bounded by a deadline on the runtime's clock: what `runtime.send` and a live
 * `finalize` use so that `waitMs` bounds the delivery attempt they make inline, not only the
 * wait after it.
 *
 * @module
 */

/**
 * Waits for `work` until `deadline` (epoch ms on `clock`, checked at least every 500 ms like
 * `DeliveryWorker.waitFor`).
 * @param onLateFailure - told when `work` rejects after the deadline passed (it goes on after
 *   the wait ends; nobody else awaits it).
 * @returns its value, or undefined once the deadline passed first.
 * @throws what `work` rejects with before the deadline.
 */
export async function within<T>(
  work: Promise<T>,
  deadline: number,
  clock: () => number,
  onLateFailure: (error: unknown) => void,
): Promise<T | undefined> {
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
    const outcome = await Promise.race([
      work.then((value) => ({ done: true as const, value })),
      expired,
    ]);
    if (outcome.done) return outcome.value;
    work.catch(onLateFailure);
    return undefined;
  } finally {
    over = true;
    clearTimeout(timer);
  }
}
