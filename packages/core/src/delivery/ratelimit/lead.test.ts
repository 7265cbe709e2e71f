/**
 * Tokens taken with a lead (`acquire`'s `leadMs`: the `sending` write overlaps the wait for
 * them), and the windows the buckets shared in a store get (`SharedLimitStore`): every take of
 * a bucket asks for the same window (interval + the blanket margin), a settle moves it to the
 * answer + interval + the answer margin and never earlier, and no lead applies to them.
 */
import { describe, expect, it } from "vitest";
import type { RateLimitCall, RateLimitScope } from "../../message/rateLimit.ts";
import type { SharedBucket, SharedLimitStore, SharedToken } from "../../state/sharedLimits.ts";
import { defaultRateLimitRoute, RateLimitScheduler } from "../RateLimitScheduler.ts";

const call = (id: string): RateLimitCall => ({
  channel: "telegram",
  accountId: "bot",
  target: { kind: "direct", id },
  operation: "send",
  route: defaultRateLimitRoute({ operation: "send", target: { kind: "direct", id } }),
});
const one: RateLimitScope[] = [{ scope: "chat", limit: 1, intervalMs: 1_000 }];

describe("RateLimitScheduler.acquire with a lead", () => {
  it("takes a token coming back within the lead as of when it comes back, once", async () => {
    let now = 0;
    const s = new RateLimitScheduler({ marginMs: () => 10, clock: () => now });
    expect((await s.acquire(one, call("a"), { maxWaitMs: 0 })).takenAt).toBe(0);
    s.settle(one, call("a"), 0, 2); // back at 1_003
    now = 990;
    // 13 ms to go: beyond a 5 ms lead (nothing taken, 8 ms until the lead reaches it) …
    expect(await s.acquire(one, call("a"), { maxWaitMs: 0, leadMs: 5 })).toEqual({ waitMs: 8 });
    // … within a 20 ms one: taken as of 1_003, the call must not start before.
    const got = await s.acquire(one, call("a"), { maxWaitMs: 0, leadMs: 20 });
    expect(got).toEqual({ waitMs: 0, takenAt: 1_003, tokens: undefined });
    // The token is out again: nobody else gets it, even with a lead.
    expect((await s.acquire(one, call("a"), { maxWaitMs: 0, leadMs: 20 })).waitMs).toBeGreaterThan(
      0,
    );
    // It is counted from the stamp (+ interval + margin) until the call starts and answers.
    expect(s.peek(one, call("a"), 2_012)).toBe(1);
    s.restamp(one, call("a"), 1_003, 1_006);
    s.settle(one, call("a"), 1_006, 1_008);
    expect(s.peek(one, call("a"), 2_008)).toBe(1);
    expect(s.peek(one, call("a"), 2_009)).toBe(0);
  });

  it("a settle that brings the token back sooner wakes a waiter its lead before", async () => {
    let now = 0;
    const due: Array<{ at: number; fn: () => void }> = [];
    const timers = {
      setTimeout(fn: () => void, ms: number) {
        const t = { at: now + ms, fn };
        due.push(t);
        return t;
      },
      clearTimeout(handle: unknown) {
        due.splice(due.indexOf(handle as (typeof due)[number]), 1);
      },
    };
    const s = new RateLimitScheduler({ marginMs: () => 50, clock: () => now, timers });
    await s.acquire(one, call("a"), { maxWaitMs: 0 });
    let took: number | undefined;
    void s.acquire(one, call("a"), { maxWaitMs: 5_000, leadMs: 20 }).then((r) => {
      took = r.takenAt;
    });
    await Promise.resolve();
    now = 2;
    s.settle(one, call("a"), 0, 2); // back at 1_003 instead of 1_050
    // The line is woken 20 ms before the token is back, and takes it as of then.
    const next = due.reduce((a, b) => (a.at <= b.at ? a : b));
    expect(next.at).toBe(983);
    now = next.at;
    due.splice(due.indexOf(next), 1);
    next.fn();
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(took).toBe(1_003);
  });

  it("hands on no token with a lead while the call that holds it has not answered", async () => {
    // 20 ms edits (live's edit rate): a 20 ms lead reaches back to the call's start.
    let now = 0;
    const fast: RateLimitScope[] = [{ scope: "chat", limit: 1, intervalMs: 20 }];
    const s = new RateLimitScheduler({ clock: () => now });
    expect((await s.acquire(fast, call("a"), { maxWaitMs: 0 })).takenAt).toBe(0); // frees at 22
    now = 3;
    // A is still in flight: the platform may count it at any time before it answers, so its
    // token is not promised to B, whose call would start at 22.
    expect((await s.acquire(fast, call("a"), { maxWaitMs: 0, leadMs: 20 })).waitMs).toBe(19);
    now = 14;
    s.settle(fast, call("a"), 0, 14); // A answered at 14 (counted then, at the latest): back at 35
    now = 15;
    const b = await s.acquire(fast, call("a"), { maxWaitMs: 0, leadMs: 20 });
    expect(b).toEqual({ waitMs: 0, takenAt: 35, tokens: undefined });
  });

  it("gives no lead on a 429 pause", async () => {
    let now = 0;
    const s = new RateLimitScheduler({ clock: () => now });
    s.pause("chat", call("a"), 10);
    now = 5;
    expect(await s.acquire(one, call("a"), { maxWaitMs: 0, leadMs: 20 })).toEqual({ waitMs: 5 });
  });
});

/** A shared store of one slot per bucket that records what it was asked. */
function recordingStore(clock: () => number) {
  const takes: SharedBucket[][] = [];
  const settles: Array<{ tokens: readonly SharedToken[]; delayMs: number }> = [];
  const freeAt = new Map<string, number>();
  const store: SharedLimitStore = {
    async takeTokens(buckets) {
      takes.push([...buckets]);
      const now = clock();
      for (const b of buckets) {
        const at = freeAt.get(b.key) ?? 0;
        if (at > now) return { waitMs: at - now, blockedBy: b.key };
      }
      const tokens = buckets.map((b) => {
        freeAt.set(b.key, now + b.windowMs);
        return { key: b.key, slot: 0, freeAt: now + b.windowMs, windowMs: b.windowMs };
      });
      return { waitMs: 0, tokens };
    },
    async settleTokens(tokens, delayMs) {
      settles.push({ tokens, delayMs });
      for (const t of tokens)
        freeAt.set(t.key, Math.max(freeAt.get(t.key) ?? 0, t.freeAt + delayMs));
    },
    async checkLoopPair() {
      return { action: "accept" };
    },
  };
  return { store, takes, settles, freeAt };
}

describe("RateLimitScheduler with buckets shared in the store", () => {
  it("asks for the same window on every take and settles to the answer + interval + 1 ms", async () => {
    let now = 0;
    const r = recordingStore(() => now);
    const s = new RateLimitScheduler({ clock: () => now, shared: r.store });
    const scopes: RateLimitScope[] = [
      { scope: "account", limit: 30, intervalMs: 1_000 },
      { scope: "chat", limit: 1, intervalMs: 1_000 },
    ];
    const first = await s.acquire(scopes, call("a"), { maxWaitMs: 0, leadMs: 20 });
    expect(first.takenAt).toBe(0);
    // A quick answer (at 3): the store's slots only move later, so they stay at take + window.
    s.settle(scopes, call("a"), 0, 3, { takenAt: 0, tokens: first.tokens ?? [] });
    expect(r.settles).toEqual([]);
    now = 1_005;
    // No lead with shared buckets: the slot frees at 1_011 (1 % of 1 s + 1 ms margin).
    expect(await s.acquire(scopes, call("a"), { maxWaitMs: 0, leadMs: 20 })).toEqual({ waitMs: 6 });
    now = 1_011;
    const second = await s.acquire(scopes, call("a"), { maxWaitMs: 0 });
    expect(second.takenAt).toBe(1_011);
    // A slow answer (at 1_300): the slots come back at 2_301 = answer + interval + 1 ms.
    s.settle(scopes, call("a"), 1_011, 1_300, { takenAt: 1_011, tokens: second.tokens ?? [] });
    await Promise.resolve();
    expect(r.freeAt.get(r.takes[0]?.[1]?.key ?? "")).toBe(2_301);
    // Every take asked for the same windows, bucket by bucket.
    for (const take of r.takes)
      expect(take.map((b) => [b.limit, b.windowMs])).toEqual([
        [30, 1_011],
        [1, 1_011],
      ]);
  });
});
