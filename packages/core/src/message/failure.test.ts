import { describe, expect, it } from "vitest";
import {
  backoffDelayMs,
  DELIVERY_FAILURE_KINDS,
  type DeliveryFailure,
  decideRetry,
  RETRY_POLICY,
} from "./failure.ts";

const fail = (
  kind: DeliveryFailure["kind"],
  extra: Partial<DeliveryFailure> = {},
): DeliveryFailure => ({
  kind,
  evidence: "not_dispatched",
  message: kind,
  ...extra,
});

describe("retry policy table", () => {
  it("covers every failure kind", () => {
    expect(Object.keys(RETRY_POLICY).sort()).toEqual([...DELIVERY_FAILURE_KINDS].sort());
  });

  it.each([
    ["transient", "retry"],
    ["rate_limit", "retry"],
    ["unknown", "retry"],
    ["auth", "fail"],
    ["permission", "fail"],
    ["invalid_payload", "fail"],
    ["not_found", "fail"],
    ["conflict", "fail"],
    ["cancelled", "fail"],
  ] as const)("%s, not dispatched → %s", (kind, action) => {
    expect(decideRetry(fail(kind), 1).action).toBe(action);
  });

  it("sends every maybe_sent failure to unknown_after_send, whatever the kind", () => {
    for (const kind of DELIVERY_FAILURE_KINDS) {
      expect(decideRetry(fail(kind, { evidence: "maybe_sent" }), 1)).toEqual({
        action: "unknown_after_send",
      });
    }
  });

  it("lets the platform's retry-after win over the computed backoff", () => {
    expect(decideRetry(fail("rate_limit", { retryAfterMs: 17_000 }), 1, {}, () => 0)).toEqual({
      action: "retry",
      delayMs: 17_000,
    });
    expect(decideRetry(fail("rate_limit", { retryAfterMs: 10 }), 6, {}, () => 1)).toEqual({
      action: "retry",
      delayMs: 10,
    });
  });

  it("fails after the last attempt and keeps the reason", () => {
    const d = decideRetry(fail("transient"), 8, { maxAttempts: 8 });
    expect(d).toEqual({ action: "fail", reason: "transient: gave up after 8 attempts" });
  });
});

describe("backoff", () => {
  it("grows exponentially, stays within the jitter band and under the ceiling", () => {
    const o = { baseMs: 100, factor: 2, maxMs: 1_000, jitter: 0.5 };
    expect(backoffDelayMs(1, o, () => 0)).toBe(50);
    expect(backoffDelayMs(1, o, () => 0.999999)).toBe(100);
    expect(backoffDelayMs(3, o, () => 1)).toBe(400);
    for (let attempt = 1; attempt < 40; attempt++) {
      const d = backoffDelayMs(attempt, o, Math.random);
      expect(d).toBeLessThanOrEqual(1_000);
      expect(d).toBeGreaterThanOrEqual(Math.min(1_000, 100 * 2 ** (attempt - 1)) / 2);
    }
  });
});
