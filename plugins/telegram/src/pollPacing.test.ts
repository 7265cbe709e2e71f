/**
 * CASES C42: the polling receiver's pacing, on manual time. The fake records each `getUpdates`
 * at the manual clock's time, and the receiver's sleeps move that clock, so the gaps between
 * polls are exact and no assertion depends on the wall clock.
 */
import { setImmediate } from "node:timers/promises";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";

/** A clock that only moves when the receiver sleeps (a sleep of `ms` moves it `ms`). */
function manualTime(startMs = Date.UTC(2026, 0, 1)) {
  let now = startMs;
  return {
    now: () => now,
    async sleep(ms: number, signal: AbortSignal): Promise<boolean> {
      now += Math.max(0, ms);
      await setImmediate();
      return !signal.aborted;
    },
  };
}

/** The manual times at which the fake received `getUpdates`, oldest first. */
const pollTimes = (calls: ReadonlyArray<{ op: string; at: number }>) =>
  calls.filter((c) => c.op === "poll").map((c) => c.at);

describe("C42 · polling pace", () => {
  it("against a server that answers empty polls at once, a poll never follows an empty one sooner than emptyPollGapMs", async () => {
    const time = manualTime();
    const b = await openBench({
      fake: { answerPollsAtOnce: true, clock: time.now },
      config: { receive: { mode: "polling", emptyPollGapMs: 1_500, pollTimeoutSeconds: 25 } },
    });
    const receiver = await b.startReceiver({ clock: time.now, sleep: time.sleep });
    await eventually(
      () => pollTimes(b.fake.server.calls).length,
      (n) => n >= 12,
      { what: "12 polls" },
    );
    await receiver.stop?.();
    const times = pollTimes(b.fake.server.calls);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    // Every answer was `[]` at once: each next poll waited the whole gap, never less.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1_500);
    // 12 polls took at least 11 gaps of manual time (the report's hot loop: 1,425 in 31.5 s).
    expect((times.at(-1) as number) - (times[0] as number)).toBeGreaterThanOrEqual(11 * 1_500);
  });

  it("updates that arrive while the server answers at once are handled and confirmed", async () => {
    const time = manualTime();
    const b = await openBench({
      fake: { answerPollsAtOnce: true, clock: time.now },
      config: { receive: { mode: "polling", emptyPollGapMs: 1_000 } },
    });
    const { chat } = b.dm();
    await b.startReceiver({ clock: time.now, sleep: time.sleep });
    b.fake.userPost({ chat: chat.id, text: "one" });
    b.fake.userPost({ chat: chat.id, text: "two" });
    await eventually(
      () => b.handled.map((h) => h.input.body?.markdown),
      (t) => t.length === 2,
      { what: "both updates handled" },
    );
    expect(b.handled.map((h) => h.input.body?.markdown)).toEqual(["one", "two"]);
    await eventually(
      () => b.fake.queue().confirmedBelow,
      (n) => n > 2,
      { what: "both confirmed" },
    );
  });

  it("backs off on failed polls: retryDelayMs doubled per failure in a row, and a 429's retry_after when longer", async () => {
    const time = manualTime();
    const b = await openBench({
      fake: { answerPollsAtOnce: true, clock: time.now },
      config: { receive: { mode: "polling", retryDelayMs: 1_000, emptyPollGapMs: 500 } },
    });
    b.fake.failNext({ kind: "status", status: 502 }, { op: "poll", times: 3 });
    b.fake.failNext({ kind: "rate_limit", retryAfterMs: 20_000 }, { op: "poll" });
    const receiver = await b.startReceiver({ clock: time.now, sleep: time.sleep });
    await eventually(
      () => pollTimes(b.fake.server.calls).length,
      (n) => n >= 7,
      { what: "7 polls" },
    );
    await receiver.stop?.();
    const times = pollTimes(b.fake.server.calls);
    const gaps = times.slice(1, 6).map((t, i) => t - (times[i] as number));
    // 502, 502, 502 → 1 s, 2 s, 4 s; then the 429 asks for 20 s (more than the 8 s backoff);
    // then the first successful poll, answered empty: the empty-poll gap.
    expect(gaps).toEqual([1_000, 2_000, 4_000, 20_000, 500]);
  });
});
