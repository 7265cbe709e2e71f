/**
 * Abortable sleep, the one copy (core's delivery worker, plugins' receivers and reconcilers,
 * the SDK's bounded retry loop).
 *
 * @module
 */

/**
 * Sleeps `ms` milliseconds, or less when `signal` aborts. Never rejects.
 *
 * @returns `true` when the full time elapsed, `false` when `signal` aborted first (or was
 *   already aborted), so a loop can write `if (!(await sleep(ms, signal))) break;`.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
