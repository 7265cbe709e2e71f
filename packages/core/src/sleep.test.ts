import { afterEach, describe, expect, it, vi } from "vitest";
import { sleep } from "./sleep.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("sleep", () => {
  it("resolves true once the time elapsed", async () => {
    vi.useFakeTimers();
    const done = sleep(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await done).toBe(true);
  });

  it("resolves false as soon as the signal aborts, and at once when it already had", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const done = sleep(60_000, controller.signal);
    controller.abort();
    expect(await done).toBe(false);
    expect(await sleep(60_000, controller.signal)).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
