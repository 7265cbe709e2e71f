/**
 * [H14] item 6 — a final is durable before anyone waits: after a preview edit answered 429
 * with retry-after 34 s, `finalize` writes the final's intent at once; the wait happens in the
 * durable queue (`nextAttemptAt`), and `finalize` returns the receipt or throws
 * `DeliveryPendingError` with the final already stored. [H20] item 10: the error states how
 * long it actually waited.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DeliveryPendingError } from "../delivery/errors.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

const INTERVAL = 1_020;
const RETRY_AFTER_S = 34;

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

/** A session whose last preview edit was answered 429 retry-after 34 s. */
async function throttledSession(key: string, waitMs: number) {
  h = await liveHarness();
  const live = await h.runtime.live(h.target, { idempotencyKey: key, waitMs });
  live.update("Hello");
  await live.idle();
  await h.time.advance(INTERVAL);
  h.platform.failNext({ type: "status", status: 429, retryAfterS: RETRY_AFTER_S }, 1, "edit");
  live.update("Hello wor");
  await live.idle();
  const throttledAt = h.time.now();
  return { live, throttledAt };
}

describe("finalize writes the final before any wait", () => {
  it("the final's intent is stored at once and waits in the queue for the retry-after", async () => {
    const { live, throttledAt } = await throttledSession("reply:throttled", 60_000);
    const harness = h as LiveHarness;
    const finalized = live.finalize("Hello world");
    finalized.catch(() => {});
    await harness.time.settle();
    // No time has passed: on the old code the final existed only in memory here.
    const stored = await harness.store.getIntentByIdempotencyKey("reply:throttled");
    expect(stored).toMatchObject({
      status: "pending",
      message: { body: { markdown: "Hello world" } },
    });
    expect(stored?.nextAttemptAt ?? 0).toBeGreaterThanOrEqual(throttledAt + RETRY_AFTER_S * 1000);

    const receipt = await harness.drive(finalized, 500, 60_000);
    expect(receipt.platformMessageIds).toHaveLength(1);
    expect(harness.visible()).toEqual(["Hello world"]);
    const edits = harness.platform.calls.filter((c) => c.op === "edit" && c.outcome === "ok");
    // The final edit went out only after the platform's retry-after.
    expect(edits.at(-1)?.at ?? 0).toBeGreaterThanOrEqual(throttledAt + RETRY_AFTER_S * 1000);
  });

  it("throws DeliveryPendingError with the final stored when waitMs ends first", async () => {
    const { live } = await throttledSession("reply:pending", 1_000);
    const harness = h as LiveHarness;
    const error = await harness.drive(live.finalize("Hello world"), 100, 5_000).catch((e) => e);
    expect(error).toBeInstanceOf(DeliveryPendingError);
    expect((error as DeliveryPendingError).intent.status).toBe("pending");
    expect((error as DeliveryPendingError).waitedMs).toBeGreaterThanOrEqual(1_000);
    expect(await harness.store.getIntentByIdempotencyKey("reply:pending")).toMatchObject({
      status: "pending",
      message: { body: { markdown: "Hello world" } },
    });
    // The queue still delivers it, and recovery removes nothing the user needs.
    await harness.drive(
      (async () => {
        for (;;) {
          const i = await harness.store.getIntentByIdempotencyKey("reply:pending");
          if (i?.status === "sent") return;
          await new Promise((r) => setTimeout(r, 5));
        }
      })(),
      500,
      60_000,
    );
    await harness.runtime.recoverLive();
    expect(harness.visible()).toEqual(["Hello world"]);
  });
});
