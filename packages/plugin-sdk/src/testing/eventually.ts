/**
 * Waiting for a visible outcome without sleeping a fixed time.
 *
 * @module
 */
import { scaledMs } from "@herald/core/testing";

/**
 * Polls `read` until `predicate` holds and returns that value.
 *
 * @param timeoutMs - give up after this many milliseconds on an idle machine; multiplied by the
 *   suite's time scale (`HERALD_TEST_TIME_SCALE`, see `scaledMs`). @defaultValue 5_000
 * @param intervalMs - poll interval in milliseconds. @defaultValue 10
 * @throws Error naming `what` and the last value read when the time is up.
 *
 * @example
 * await eventually(() => platform.visible(target), (ms) => ms.length === 2, { what: "two parts" });
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  predicate: (value: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const timeoutMs = scaledMs(options.timeoutMs ?? 5_000);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (predicate(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `${options.what ?? "condition"} not met within ${timeoutMs} ms; last value: ${preview(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10));
  }
}

function preview(value: unknown): string {
  try {
    const s = JSON.stringify(value);
    return s.length > 2_000 ? `${s.slice(0, 2_000)}…` : s;
  } catch {
    return String(value);
  }
}
