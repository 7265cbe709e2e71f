import { describe, expect, it } from "vitest";
import type { RateLimitCall, RateLimitScope } from "../../message/rateLimit.ts";
import { defaultRateLimitRoute, RateLimitScheduler } from "../RateLimitScheduler.ts";
import type { WaiterTimers } from "./waiters.ts";

// A manual clock and timers: time moves only when a test says so (no sleeps).
function manualTime() {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const api: WaiterTimers = {
    setTimeout(fn, ms) {
      seq += 1;
      timers.set(seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
  };
  return {
    clock: () => now,
    timers: api,
    pending: () => [...timers.values()].map((t) => t.at),
    /** Moves time to `to`, firing due timers in order; lets promise callbacks run in between. */
    async advance(to: number) {
      for (;;) {
        await flush();
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= to)
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].fn();
      }
      now = to;
      await flush();
    },
  };
}
const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

const limits: RateLimitScope[] = [
  { scope: "account", limit: 2, intervalMs: 1_000 },
  { scope: "chat", limit: 1, intervalMs: 1_000 },
];
const call = (id: string): RateLimitCall => ({
  channel: "telegram",
  accountId: "bot",
  target: { kind: "direct", id },
  operation: "send",
  route: defaultRateLimitRoute({ operation: "send", target: { kind: "direct", id } }),
});

describe("RateLimitScheduler.acquire: the line of waiters", () => {
  it("takes at once when tokens are there, and queues the rest in arrival order", async () => {
    const t = manualTime();
    const s = new RateLimitScheduler({ marginMs: () => 0, clock: t.clock, timers: t.timers });
    const got: Array<[string, number]> = [];
    const go = (id: string) =>
      s.acquire(limits, call(id), { maxWaitMs: 10_000 }).then((r) => {
        got.push([id, r.takenAt ?? -1]);
        return r;
      });
    const all = ["a", "b", "c", "d", "e"].map(go);
    await t.advance(0);
    expect(got).toEqual([
      ["a", 0],
      ["b", 0],
    ]);
    expect(s.waiting).toBe(3);
    // One timer for the whole line, at the moment the first tokens come back.
    expect(t.pending()).toEqual([1_000]);
    await t.advance(999);
    expect(got).toHaveLength(2);
    await t.advance(1_000);
    expect(got.slice(2)).toEqual([
      ["c", 1_000],
      ["d", 1_000],
    ]);
    await t.advance(2_000);
    expect(got.slice(4)).toEqual([["e", 2_000]]);
    expect((await Promise.all(all)).every((r) => r.waitMs === 0)).toBe(true);
  });

  it("lets a call whose buckets have tokens go past one held by its own chat", async () => {
    const t = manualTime();
    const s = new RateLimitScheduler({ marginMs: () => 0, clock: t.clock, timers: t.timers });
    const order: string[] = [];
    const go = (id: string) =>
      s.acquire(limits, call(id), { maxWaitMs: 10_000 }).then(() => order.push(id));
    void go("a");
    await t.advance(0);
    void go("a"); // chat a is spent until 1 000
    await t.advance(10);
    void go("b"); // account has one token left: b goes now
    await t.advance(10);
    expect(order).toEqual(["a", "b"]);
    await t.advance(1_000);
    expect(order).toEqual(["a", "b", "a"]);
  });

  it("gives up without taking when the wait is longer than maxWaitMs, at once or later", async () => {
    const t = manualTime();
    const s = new RateLimitScheduler({ marginMs: () => 0, clock: t.clock, timers: t.timers });
    expect(await s.acquire(limits, call("a"), { maxWaitMs: 500 })).toEqual({
      waitMs: 0,
      takenAt: 0,
    });
    expect(await s.acquire(limits, call("a"), { maxWaitMs: 500 })).toEqual({ waitMs: 1_000 });
    // The refused call took nothing: the account's second token is still there.
    expect(s.peek(limits, call("b"), 0)).toBe(0);
    const ac = new AbortController();
    const waiting = s.acquire(limits, call("a"), { maxWaitMs: 5_000, signal: ac.signal });
    await t.advance(100);
    ac.abort();
    await t.advance(100);
    expect(await waiting).toEqual({ waitMs: 900 });
    expect(s.waiting).toBe(0);
  });

  it("waits out a reported reset and a 429 pause in line, woken by the timer", async () => {
    const t = manualTime();
    const s = new RateLimitScheduler({ marginMs: () => 0, clock: t.clock, timers: t.timers });
    const c = call("a");
    s.observe(c, { remaining: 0, resetAfterMs: 5_000 }, 0);
    s.pause("chat", call("b"), 3_000);
    const order: string[] = [];
    void s.acquire([], c, { maxWaitMs: 10_000 }).then(() => order.push("a"));
    void s.acquire([], call("b"), { maxWaitMs: 10_000 }).then(() => order.push("b"));
    await t.advance(2_999);
    expect(order).toEqual([]);
    await t.advance(3_000);
    expect(order).toEqual(["b"]);
    await t.advance(4_999);
    expect(order).toEqual(["b"]);
    await t.advance(5_000);
    expect(order).toEqual(["b", "a"]);
  });

  it("settle counts a call's tokens from its answer, without the blanket margin", () => {
    const s = new RateLimitScheduler({ marginMs: () => 10 });
    const one: RateLimitScope[] = [{ scope: "chat", limit: 1, intervalMs: 1_000 }];
    expect(s.reserve(one, call("a"), 0)).toBe(0);
    // Until its answer the token is out for the interval + the margin.
    expect(s.peek(one, call("a"), 1_000)).toBe(10);
    // The call stalled: answered at 300, so it reached the platform by 300 at the latest; its
    // token comes back an interval + 1 ms (the answer margin) after that.
    s.settle(one, call("a"), 0, 300);
    expect(s.peek(one, call("a"), 1_010)).toBe(291);
    expect(s.peek(one, call("a"), 1_301)).toBe(0);
    // A quick answer brings the token back sooner than the margin would.
    expect(s.reserve(one, call("b"), 0)).toBe(0);
    s.settle(one, call("b"), 0, 5);
    expect(s.peek(one, call("b"), 1_005)).toBe(1);
    expect(s.peek(one, call("b"), 1_006)).toBe(0);
  });

  it("wakes a waiter when a settle brings its token back sooner", async () => {
    const t = manualTime();
    const s = new RateLimitScheduler({ marginMs: () => 50, clock: t.clock, timers: t.timers });
    const one: RateLimitScope[] = [{ scope: "chat", limit: 1, intervalMs: 1_000 }];
    const first = await s.acquire(one, call("a"), { maxWaitMs: 5_000 });
    expect(first).toEqual({ waitMs: 0, takenAt: 0, tokens: undefined });
    let tookAt: number | undefined;
    void s.acquire(one, call("a"), { maxWaitMs: 5_000 }).then((r) => {
      tookAt = r.takenAt;
    });
    await t.advance(2);
    s.settle(one, call("a"), 0, 2); // answered at 2: back at 1_003, not 1_050
    await t.advance(1_002);
    expect(tookAt).toBeUndefined();
    await t.advance(1_003);
    expect(tookAt).toBe(1_003);
  });
});
