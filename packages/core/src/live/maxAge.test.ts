/**
 * C55 · stale reply, live ([H25]; `delivery/expiry.ts`): with a runtime-wide `maxAgeMs`, a live
 * final whose preview is already visible is finalised after the platform was down past that age,
 * while a plain reply written at the same time ends `expired`, never sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DeliveryExpiredError } from "../delivery/errors.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { type LiveHarness, liveHarness } from "./testing/harness.ts";

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("C55 · maxAgeMs and live finals", () => {
  it("C55 finalises a live final whose preview is visible after an outage past maxAgeMs; a plain reply expires", async () => {
    // Native idempotency keys: a send refused with 503 is replayed with its key, not held.
    h = await liveHarness({
      adapter: { idempotent: true },
      platform: { idempotent: true },
      delivery: { maxAgeMs: 60_000, backoff: { baseMs: 1_000, maxMs: 10_000, maxAttempts: 50 } },
    });
    const harness = h;
    const live = await harness.runtime.live(harness.target, {
      idempotencyKey: "reply:1",
      waitMs: 600_000,
    });
    live.update("Hel");
    await live.idle();
    expect(harness.visible()).toEqual(["Hel"]);
    // The platform answers 503 to every call for 2 minutes.
    const t0 = harness.time.now();
    harness.platform.outage({ op: "any", untilMs: t0 + 120_000, status: 503 });
    const plain = harness.runtime.send(outboundMessage("plain", { target: { id: "other" } }), {
      waitMs: 600_000,
    });
    const final = live.finalize("Hello world!");
    const [finalOutcome, plainOutcome] = await harness.drive(
      Promise.allSettled([final, plain]),
      1_000,
      600_000,
    );
    expect(finalOutcome.status, String((finalOutcome as { reason?: unknown }).reason)).toBe(
      "fulfilled",
    );
    expect(harness.visible()).toEqual(["Hello world!"]);
    expect(harness.time.now()).toBeGreaterThan(t0 + 120_000); // finalised after the outage
    expect(plainOutcome.status === "rejected" && plainOutcome.reason).toBeInstanceOf(
      DeliveryExpiredError,
    );
    expect(harness.platform.visible("other")).toEqual([]);
  }, 60_000);
});
