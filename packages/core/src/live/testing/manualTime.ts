/**
 * Manual time for live tests: one clock and the timers that go with it. Time moves only through
 * `advance`, which fires due timers in order and lets the promise chains they start settle, so
 * throttling, retries and typing TTLs are tested without sleeping.
 *
 * @module
 */
import type { LiveTimers } from "../types.ts";

/** A manual clock with timers. */
export type ManualTime = {
  /** Epoch ms; pass as the runtime's `clock`. */
  now: () => number;
  /** Pass as `live.timers`. */
  timers: LiveTimers;
  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): Promise<void>;
  /** Lets pending promise chains (store writes, fake platform calls) run. */
  settle(): Promise<void>;
};

/** Creates manual time starting at `startMs`. @defaultValue the real time */
export function manualTime(startMs = Date.now()): ManualTime {
  let now = startMs;
  let seq = 0;
  const queue = new Map<number, { at: number; seq: number; fn: () => void }>();
  const settle = async () => {
    for (let i = 0; i < 30; i++) await new Promise<void>((r) => setImmediate(r));
  };
  return {
    now: () => now,
    timers: {
      setTimeout(fn, ms) {
        seq += 1;
        queue.set(seq, { at: now + Math.max(0, ms), seq, fn });
        return seq;
      },
      clearTimeout(handle) {
        queue.delete(handle as number);
      },
    },
    settle,
    async advance(ms) {
      const target = now + ms;
      await settle();
      for (;;) {
        let next: { at: number; seq: number; fn: () => void } | undefined;
        for (const t of queue.values()) {
          if (t.at <= target && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)))
            next = t;
        }
        if (!next) break;
        queue.delete(next.seq);
        now = Math.max(now, next.at);
        next.fn();
        await settle();
      }
      now = target;
      await settle();
    },
  };
}
