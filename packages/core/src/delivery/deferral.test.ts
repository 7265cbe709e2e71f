/**
 * A deferral is no attempt ([H22] item 3: "whether a deferral spends an attempt"): when the
 * next part of a message must wait longer for its rate-limit tokens than a worker holds in
 * memory (`maxInMemoryWaitMs`), the intent goes back to the queue with its landed parts and the
 * attempt it leased given back — a message with more parts than `maxAttempts` under a tight
 * chat limit is still sent, and only real failures count. Manual clock, declared limits.
 */
import { afterEach, describe, expect, it } from "vitest";
import { outboundMessage } from "../testing/fixtures.ts";
import { deliveryHarness, eventually, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const list = () => h?.store.listIntents({ limit: 10 }) ?? Promise.resolve([]);

describe("deferral between parts", () => {
  it("4 parts, one token per second per chat, maxAttempts 2: each wait goes back to the queue without spending an attempt; sent after attempt 1", async () => {
    h = await deliveryHarness({
      adapter: { maxLength: 3, rateLimits: [{ scope: "chat", limit: 1, intervalMs: 1_000 }] },
      delivery: {
        maxInMemoryWaitMs: 0,
        backoff: { baseMs: 100, maxMs: 400, maxAttempts: 2 },
      },
    });
    const harness = h;
    await harness.runtime.enqueue(outboundMessage("aaabbbcccddd"));
    const attempts: number[] = [];
    for (let landed = 1; landed < 4; landed++) {
      const [deferred] = await eventually(
        list,
        (l) =>
          l[0]?.status === "pending" &&
          l[0].partialReceipt?.parts.length === landed &&
          (l[0].nextAttemptAt ?? 0) > harness.clock(),
      );
      attempts.push(deferred?.attempt ?? -1);
      // Back to the queue for the token's wait, not for a backoff after a failure.
      expect(deferred?.failure).toBeUndefined();
      // The token's wait (1 s, plus the scheduler's margin), not a backoff.
      expect((deferred?.nextAttemptAt ?? 0) - harness.clock()).toBeLessThanOrEqual(1_100);
      harness.clock.advance(1_100);
      harness.runtime.worker.kick();
    }
    const [sent] = await eventually(list, (l) => l[0]?.status === "sent");
    expect(attempts).toEqual([0, 0, 0]);
    expect(sent?.attempt).toBe(1);
    expect(harness.platform.visible().map((m) => m.text)).toEqual(["aaa", "bbb", "ccc", "ddd"]);
    expect(harness.platform.rateLimited).toBe(0);
  });
});
