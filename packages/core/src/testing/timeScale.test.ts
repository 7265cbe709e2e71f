import { availableParallelism, loadavg } from "node:os";
import { describe, expect, it } from "vitest";
import { scaledMs, TEST_TIME_SCALE_ENV, testTimeScale } from "./timeScale.ts";

describe("the suite's time scale", () => {
  it("takes an explicit HERALD_TEST_TIME_SCALE over the machine's load", () => {
    expect(testTimeScale({ [TEST_TIME_SCALE_ENV]: "4" })).toBe(4);
    expect(testTimeScale({ [TEST_TIME_SCALE_ENV]: "0.5" })).toBe(0.5);
    expect(scaledMs(30_000, { [TEST_TIME_SCALE_ENV]: "2.5" })).toBe(75_000);
    expect(scaledMs(10, { [TEST_TIME_SCALE_ENV]: "0.15" })).toBe(2); // rounded up
  });

  it("defaults to the load per core, and never below 1", () => {
    const scale = testTimeScale({});
    expect(scale).toBeGreaterThanOrEqual(1);
    // The load moves while we read it; the scale follows it within a margin.
    const expected = Math.max(1, (loadavg()[0] ?? 0) / availableParallelism());
    expect(scale).toBeGreaterThanOrEqual(Math.max(1, expected * 0.5));
    expect(scale).toBeLessThanOrEqual(expected * 2 + 1);
  });

  it("names the variable when it is not a positive number", () => {
    for (const bad of ["fast", "0", "-2", "Infinity"]) {
      expect(() => testTimeScale({ [TEST_TIME_SCALE_ENV]: bad })).toThrow(
        /HERALD_TEST_TIME_SCALE must be a positive number/,
      );
    }
  });
});
