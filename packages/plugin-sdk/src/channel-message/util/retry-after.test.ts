import { describe, expect, it } from "vitest";
import { formatRetryAfter, parseRetryAfter } from "./retry-after.ts";

const NOW = Date.parse("2026-12-01T10:00:00Z");

describe("parseRetryAfter", () => {
  it("reads delay-seconds as milliseconds", () => {
    expect(parseRetryAfter("3", NOW)).toBe(3_000);
    expect(parseRetryAfter(" 120 ", NOW)).toBe(120_000);
    expect(parseRetryAfter("1.5", NOW)).toBe(1_500);
    expect(parseRetryAfter("0", NOW)).toBe(0);
  });

  it("reads an HTTP date as the time until it, and a past date as 0", () => {
    expect(parseRetryAfter("Tue, 01 Dec 2026 10:00:30 GMT", NOW)).toBe(30_000);
    expect(parseRetryAfter("Tue, 01 Dec 2026 09:00:00 GMT", NOW)).toBe(0);
  });

  it("is undefined for absent, empty, negative and unreadable values", () => {
    for (const v of [undefined, null, "", "  ", "-5", "soon", "1e3", "3 s"]) {
      expect(parseRetryAfter(v, NOW), String(v)).toBeUndefined();
    }
  });
});

describe("formatRetryAfter", () => {
  it("writes whole seconds, rounded up, never negative", () => {
    expect(formatRetryAfter(1)).toBe("1");
    expect(formatRetryAfter(1_200)).toBe("2");
    expect(formatRetryAfter(-10)).toBe("0");
    expect(parseRetryAfter(formatRetryAfter(2_500))).toBe(3_000);
  });
});
