/**
 * Timer helpers over the injectable {@link LiveTimers}.
 *
 * @module
 */
import type { LiveTimers } from "./types.ts";

/** Node's timers. */
export const nodeTimers: LiveTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Lets a background timer (lease renewal, typing refresh) not keep the process alive. */
export function unref(handle: unknown): unknown {
  (handle as { unref?: () => void } | undefined)?.unref?.();
  return handle;
}

/** Resolves after `ms` milliseconds of the given timers. */
export function delay(timers: LiveTimers, ms: number): Promise<void> {
  return new Promise((resolve) => {
    timers.setTimeout(resolve, Math.max(0, ms));
  });
}
