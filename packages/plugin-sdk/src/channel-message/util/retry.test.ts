import { afterEach, describe, expect, it, vi } from "vitest";
import { retry } from "./retry.ts";

afterEach(() => {
  vi.useRealTimers();
});

const failing = (failures: number, error: unknown = new Error("down")) => {
  let calls = 0;
  const fn = async (attempt: number) => {
    calls += 1;
    if (attempt <= failures) throw error;
    return `ok after ${attempt}`;
  };
  return { fn, calls: () => calls };
};

describe("retry", () => {
  it("retries with backoff until the call succeeds", async () => {
    vi.useFakeTimers();
    const delays: number[] = [];
    const { fn } = failing(2);
    const done = retry(fn, {
      attempts: 5,
      backoff: { baseMs: 100, factor: 2, jitter: 0 },
      onRetry: ({ delayMs }) => delays.push(delayMs),
    });
    await vi.runAllTimersAsync();
    expect(await done).toBe("ok after 3");
    expect(delays).toEqual([100, 200]);
  });

  it("throws the last error once attempts run out, after exactly that many calls", async () => {
    const { fn, calls } = failing(10, new Error("still down"));
    await expect(retry(fn, { attempts: 3, backoff: { baseMs: 0 } })).rejects.toThrow("still down");
    expect(calls()).toBe(3);
  });

  it("stops at once when shouldRetry says no, and waits what it says otherwise", async () => {
    const fatal = failing(10, new Error("invalid_auth"));
    await expect(retry(fatal.fn, { shouldRetry: () => false })).rejects.toThrow("invalid_auth");
    expect(fatal.calls()).toBe(1);
    vi.useFakeTimers();
    const delays: number[] = [];
    const limited = failing(1);
    const done = retry(limited.fn, {
      shouldRetry: () => ({ delayMs: 7_000 }),
      onRetry: ({ delayMs }) => delays.push(delayMs),
    });
    await vi.advanceTimersByTimeAsync(7_000);
    expect(await done).toBe("ok after 2");
    expect(delays).toEqual([7_000]);
  });

  it("throws the signal's reason when aborted during a wait", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const { fn, calls } = failing(10);
    const done = retry(fn, { attempts: 5, backoff: { baseMs: 60_000 }, signal: controller.signal });
    const settled = done.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new Error("shutting down"));
    expect(await settled).toMatchObject({ message: "shutting down" });
    expect(calls()).toBe(1);
  });

  it("names a bad attempts count", async () => {
    await expect(retry(async () => 1, { attempts: 0 })).rejects.toThrow(
      "retry: attempts must be a positive integer, got 0",
    );
  });
});
