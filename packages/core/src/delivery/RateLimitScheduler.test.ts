import { describe, expect, it } from "vitest";
import type { RateLimitScope } from "../message/capabilities.ts";
import { RateLimitScheduler, type RateLimitSubject } from "./RateLimitScheduler.ts";

const telegram: RateLimitScope[] = [
  { scope: "account", limit: 30, intervalMs: 1_000 },
  { scope: "chat", limit: 1, intervalMs: 1_000 },
  { scope: "chat", limit: 20, intervalMs: 60_000, targetKinds: ["group"] },
];
const chat = (id: string, kind: "direct" | "group" = "direct"): RateLimitSubject => ({
  channel: "telegram",
  accountId: "bot",
  target: { kind, id },
});

describe("RateLimitScheduler", () => {
  it("returns a token a little late by default, since the platform counts on arrival", () => {
    const s = new RateLimitScheduler();
    expect(s.reserve(telegram, chat("a"), 0)).toBe(0);
    expect(s.reserve(telegram, chat("a"), 1_000)).toBe(11);
    expect(s.peek(telegram, chat("a"), 1_011)).toBe(0);
  });

  it("restamp moves a reserved token to when the call started: it returns an interval after that", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    expect(s.reserve(telegram, chat("a"), 0)).toBe(0);
    s.restamp(telegram, chat("a"), 0, 40);
    expect(s.peek(telegram, chat("a"), 1_000)).toBe(40);
    expect(s.reserve(telegram, chat("a"), 1_040)).toBe(0);
  });

  it("allows one message per second per chat and tells how long to wait", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    expect(s.reserve(telegram, chat("a"), 0)).toBe(0);
    expect(s.reserve(telegram, chat("a"), 400)).toBe(600);
    expect(s.reserve(telegram, chat("b"), 400)).toBe(0);
    expect(s.reserve(telegram, chat("a"), 1_000)).toBe(0);
  });

  it("never lets more than `limit` calls into any sliding window", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const sent: number[] = [];
    for (let t = 0; t < 5_000; t += 7) {
      if (s.reserve(telegram, chat(`c${t % 97}`), t) === 0) sent.push(t);
    }
    for (const t of sent) {
      expect(sent.filter((u) => u >= t && u < t + 1_000).length).toBeLessThanOrEqual(30);
    }
    expect(sent.length).toBeGreaterThan(100);
  });

  it("applies the 20/min group limit to groups only", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    let t = 0;
    for (let i = 0; i < 20; i++) {
      t += 1_000;
      expect(s.reserve(telegram, chat("g", "group"), t)).toBe(0);
    }
    // Sent at 1 s … 20 s: the oldest token returns at 61 s.
    expect(s.reserve(telegram, chat("g", "group"), t + 1_000)).toBe(61_000 - 21_000);
    expect(s.reserve(telegram, chat("d"), t + 1_000)).toBe(0);
  });

  it("takes nothing when one of the buckets is empty", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    expect(s.reserve(telegram, chat("a"), 0)).toBe(0);
    // chat "a" is full; the account bucket must not be charged for the refused call.
    for (let i = 0; i < 10; i++) expect(s.reserve(telegram, chat("a"), 1)).toBeGreaterThan(0);
    for (let i = 0; i < 29; i++) expect(s.reserve(telegram, chat(`x${i}`), 2)).toBe(0);
    expect(s.reserve(telegram, chat("y"), 3)).toBe(997);
  });

  it("pauses only the throttled chat after a retry-after", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    s.pause("chat", chat("a"), 17_000);
    expect(s.reserve(telegram, chat("a"), 0)).toBe(17_000);
    expect(s.reserve(telegram, chat("b"), 0)).toBe(0);
    expect(s.reserve(telegram, chat("a"), 17_000)).toBe(0);
  });

  it("pauses every chat of the bot for an account-wide retry-after, declared or not", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    s.pause("account", chat("a"), 500);
    expect(s.reserve([], chat("z"), 0)).toBe(500);
  });
});
