/**
 * Tokens taken with a lead (`acquire`'s `leadMs`: the `sending` write overlaps the wait for
 * them), and the windows the buckets shared in a store get (`SharedLimitStore`): every take of
 * a bucket asks for the same window (interval + the blanket margin), a settle moves it to the
 * answer + interval + the answer margin and never earlier, and a lead takes only a slot whose
 * call was settled, adding the take's round trip.
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

/**
 * A shared store of one slot per bucket that records what it was asked, with the lead rule of
 * `PostgresStateStore`: a settled slot may be taken up to `leadMs` before it frees, leased as
 * of then; a slot whose call has not been settled only once free. Each take's round trip lasts
 * `rttMs` (the clock moves on during it; the store reads its clock halfway).
 */
function recordingStore(time: { now: number }, rttMs = 0) {
  const takes: Array<{ buckets: SharedBucket[]; leadMs: number }> = [];
  const settles: Array<{ tokens: readonly SharedToken[]; delayMs: number }> = [];
  const slots = new Map<string, { freeAt: number; settled: boolean }>();
  const slot = (key: string) => slots.get(key) ?? { freeAt: 0, settled: true };
  const store: SharedLimitStore = {
    async takeTokens(buckets, options) {
      const leadMs = options?.leadMs ?? 0;
      takes.push({ buckets: [...buckets], leadMs });
      time.now += rttMs / 2;
      const now = time.now;
      time.now += rttMs / 2;
      let ahead = 0;
      for (const b of buckets) {
        const s = slot(b.key);
        if (!(s.freeAt <= now || (s.settled && s.freeAt <= now + leadMs))) {
          const wait = Math.min(s.freeAt, s.settled ? s.freeAt - leadMs : Infinity) - now;
          return { waitMs: Math.max(1, wait), blockedBy: b.key };
        }
        ahead = Math.max(ahead, s.freeAt - now);
      }
      const tokens = buckets.map((b) => {
        const freeAt = now + ahead + b.windowMs;
        slots.set(b.key, { freeAt, settled: false });
        return { key: b.key, slot: 0, freeAt, windowMs: b.windowMs };
      });
      return ahead > 0 ? { waitMs: 0, tokens, aheadMs: ahead } : { waitMs: 0, tokens };
    },
    async settleTokens(tokens, delayMs) {
      settles.push({ tokens, delayMs });
      for (const t of tokens) {
        const s = slot(t.key);
        if (s.freeAt === t.freeAt) slots.set(t.key, { freeAt: t.freeAt + delayMs, settled: true });
      }
    },
    async checkLoopPair() {
      return { action: "accept" };
    },
  };
  return { store, takes, settles, slots };
}

describe("RateLimitScheduler with buckets shared in the store", () => {
  const scopes: RateLimitScope[] = [
    { scope: "account", limit: 30, intervalMs: 1_000 },
    { scope: "chat", limit: 1, intervalMs: 1_000 },
  ];

  it("asks for the same window on every take and settles every answer to answer + interval + 1 ms", async () => {
    const time = { now: 0 };
    const r = recordingStore(time);
    const s = new RateLimitScheduler({ clock: () => time.now, shared: r.store });
    const first = await s.acquire(scopes, call("a"), { maxWaitMs: 0 });
    expect(first.takenAt).toBe(0);
    expect(first.shared?.takenAt).toBe(0);
    // A quick answer (at 3): settled with no delay (the slots only move later: they stay at
    // take + window), which lets a later take have them ahead.
    s.settle(scopes, call("a"), 0, 3, first.shared);
    expect(r.settles.map((x) => x.delayMs)).toEqual([0]);
    time.now = 1_011;
    const second = await s.acquire(scopes, call("a"), { maxWaitMs: 0 });
    expect(second.takenAt).toBe(1_011);
    // A slow answer (at 1_300): the slots come back at 2_301 = answer + interval + 1 ms.
    s.settle(scopes, call("a"), 1_011, 1_300, second.shared);
    await Promise.resolve();
    expect(r.slots.get(r.takes[0]?.buckets[1]?.key ?? "")?.freeAt).toBe(2_301);
    // Every take asked for the same windows, bucket by bucket, and no lead.
    for (const take of r.takes) {
      expect(take.buckets.map((b) => [b.limit, b.windowMs])).toEqual([
        [30, 1_011],
        [1, 1_011],
      ]);
      expect(take.leadMs).toBe(0);
    }
  });

  it("takes a settled slot ahead by the lead asked plus the take's round trip; the call starts no earlier than the slot frees", async () => {
    const time = { now: 0 };
    const r = recordingStore(time, 4);
    const s = new RateLimitScheduler({ clock: () => time.now, shared: r.store });
    // Five takes of 4 ms teach the scheduler the round trip (the average reaches 2.7 ms).
    for (const id of ["b", "c", "d", "e", "f"]) {
      const got = await s.acquire(one, call(id), { maxWaitMs: 0 });
      s.settle(one, call(id), time.now, time.now, got.shared);
    }
    const first = await s.acquire(one, call("a"), { maxWaitMs: 0 });
    // Answered as the take returned: settled 4 ms later than taken (the round trip).
    s.settle(one, call("a"), time.now, time.now, first.shared);
    expect(r.settles.at(-1)?.delayMs).toBe(4);
    const freeAt = r.slots.get(r.takes.at(-1)?.buckets[0]?.key ?? "")?.freeAt ?? 0;
    expect(r.slots.get(r.takes.at(-1)?.buckets[0]?.key ?? "")?.settled).toBe(true);
    // 7 ms before the chat slot frees, a take with a 5 ms lead: 5 + the 2 ms of round trip.
    time.now = freeAt - 7 - 2;
    const ahead = await s.acquire(one, call("a"), { maxWaitMs: 0, leadMs: 5 });
    expect(r.takes.at(-1)?.leadMs).toBe(7);
    expect(ahead.waitMs).toBe(0);
    // The store read its clock at freeAt - 7: taken 7 ms ahead. The call starts no earlier than
    // 7 ms after the answer (at freeAt - 5: freeAt + 2, whenever in the round trip the store
    // read its clock), and its settle counts from 7 ms after the try began (freeAt - 2).
    expect(ahead.takenAt).toBe(freeAt + 2);
    expect(ahead.shared?.takenAt).toBe(freeAt - 2);
    expect(ahead.shared?.tokens.every((k) => k.freeAt === freeAt + 1_011)).toBe(true);
  });

  it("does not take ahead a slot whose call has not answered, nor for a caller that asked no lead", async () => {
    const time = { now: 0 };
    const r = recordingStore(time);
    const s = new RateLimitScheduler({ clock: () => time.now, shared: r.store });
    const first = await s.acquire(scopes, call("a"), { maxWaitMs: 0 });
    time.now = 1_005;
    // In flight (not settled): the slot goes at 1_011 only, lead or not.
    expect(await s.acquire(scopes, call("a"), { maxWaitMs: 0, leadMs: 20 })).toEqual({ waitMs: 6 });
    s.settle(scopes, call("a"), 0, 3, first.shared);
    // Settled: a caller that passed no lead still waits for 1_011 …
    expect(await s.acquire(scopes, call("a"), { maxWaitMs: 0 })).toEqual({ waitMs: 6 });
    expect(r.takes.at(-1)?.leadMs).toBe(0);
    // … one with a lead takes it now, as of 1_011.
    const ahead = await s.acquire(scopes, call("a"), { maxWaitMs: 0, leadMs: 20 });
    expect(ahead).toMatchObject({ waitMs: 0, takenAt: 1_011 });
  });
});
