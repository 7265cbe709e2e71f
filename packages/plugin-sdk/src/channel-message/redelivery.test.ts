/** The bounded local redelivery helper for push-only sockets (fake clock). */
import type { ReceiveAckSignal, ReceiveOutcome, ReceiveTicket } from "@herald/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRedelivery } from "./redelivery.ts";

/** A sink answering the scripted acks in order, recording every delivery. */
function scriptedSink(acks: ReceiveAckSignal[]) {
  const deliveries: unknown[] = [];
  return {
    deliveries,
    receive(raw: unknown): ReceiveTicket {
      deliveries.push(raw);
      const ack = acks.shift() ?? { kind: "accept" };
      return {
        ack: Promise.resolve(ack),
        done: Promise.resolve({ status: "duplicate" } as unknown as ReceiveOutcome),
      };
    },
  };
}

function logger() {
  const lines: { level: string; msg: string | undefined }[] = [];
  const at = (level: string) => (_o: object, msg?: string) => lines.push({ level, msg });
  const log = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => log,
  };
  return { log, lines };
}

const busy: ReceiveAckSignal = { kind: "retry", reason: "in_flight_elsewhere", retryAfterMs: 250 };
const failed: ReceiveAckSignal = { kind: "retry", reason: "failed" };

beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }));
afterEach(() => vi.useRealTimers());

describe("redelivery", () => {
  it("hands an event answered `retry` over again after retry-after / backoff until accepted", async () => {
    const sink = scriptedSink([busy, failed]);
    const { log } = logger();
    const r = createRedelivery({ sink, logger: log, baseDelayMs: 1_000 });
    const seen: ReceiveAckSignal[] = [];
    const result = r.deliver(
      { id: 1 },
      { accountId: "T1" },
      (ack) => void ack.then((a) => seen.push(a)),
    );
    await vi.advanceTimersByTimeAsync(249);
    expect(sink.deliveries).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1); // retry-after 250 ms wins
    expect(sink.deliveries).toHaveLength(2);
    expect(r.waiting()).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000); // attempt 2 → backoff 1 000 · 2
    expect(await result).toEqual({ kind: "accept" });
    expect(sink.deliveries).toHaveLength(3);
    expect(seen.map((a) => a.kind)).toEqual(["retry", "retry", "accept"]);
  });

  it("gives up after maxAttempts, logged as an error, never silent", async () => {
    const sink = scriptedSink([failed, failed, failed]);
    const { log, lines } = logger();
    const r = createRedelivery({ sink, logger: log, maxAttempts: 3, baseDelayMs: 10 });
    const result = r.deliver({ id: 2 });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await result).toEqual(failed);
    expect(sink.deliveries).toHaveLength(3);
    expect(lines.filter((l) => l.level === "error").map((l) => l.msg)).toEqual([
      "redelivery gave up: event not processed (the platform will not send it again)",
    ]);
  });

  it("bounds the number of waiting events", async () => {
    const sink = scriptedSink([failed, failed, failed]);
    const { log, lines } = logger();
    const r = createRedelivery({ sink, logger: log, maxWaiting: 1, baseDelayMs: 1_000 });
    void r.deliver({ id: 3 });
    await vi.advanceTimersByTimeAsync(0);
    expect(r.waiting()).toBe(1);
    expect(await r.deliver({ id: 4 })).toEqual(failed); // no room: given up at once, logged
    expect(lines.some((l) => l.level === "error")).toBe(true);
    r.close();
    expect(r.waiting()).toBe(0);
  });
});
