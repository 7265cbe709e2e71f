/**
 * A manual clock for receive tests: time moves only when the test says so.
 *
 * @module
 */

/** A clock whose `now` only changes through `advance` / `set`. */
export type ManualClock = {
  /** Epoch ms. Pass as `deps.clock`. */
  now: () => number;
  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void;
  set(epochMs: number): void;
};

/** Creates a {@link ManualClock} starting at `startMs` (default 2025-01-01T00:00:00Z). */
export function manualClock(startMs = Date.UTC(2025, 0, 1)): ManualClock {
  let t = startMs;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(epochMs) {
      t = epochMs;
    },
  };
}
