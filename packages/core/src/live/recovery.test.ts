/**
 * Live recovery in process: a second runtime on the same store and platform plays the
 * restarted process; the first one "dies" by never running its timers again (its lease lapses).
 */
import { afterEach, describe, expect, it } from "vitest";
import { DeliveryPendingError } from "../delivery/errors.ts";
import { resetFailpoints } from "../failpoint.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { type LiveHarness, liveHarness, TELEGRAM_LIKE } from "./testing/harness.ts";
import type { LiveTimers } from "./types.ts";

const INTERVAL = 1_020;
const LEASE_MS = 10_000;

let h: LiveHarness | undefined;
afterEach(async () => {
  delete process.env.HERALD_FAILPOINTS;
  resetFailpoints();
  await h?.close().catch(() => {});
  h = undefined;
});

/** Timers that never fire: the process that owns them is "dead" once the test stops driving it. */
const frozen: LiveTimers = { setTimeout: () => 0, clearTimeout: () => {} };

/** A runtime sharing the harness's store, platform and clock, whose live timers never fire. */
function doomedRuntime(
  harness: LiveHarness,
  adapter: { reconcile?: boolean; maxLength?: number; editRate?: boolean } = {},
): MessageRuntime {
  const { editRate = true, ...rest } = adapter;
  return createMessageRuntime({
    store: harness.store,
    adapters: [
      createFakeAdapter({
        ...rest,
        live: editRate ? TELEGRAM_LIKE : {},
        transport: inProcessTransport(harness.platform),
      }),
    ],
    clock: harness.time.now,
    random: () => 0.5,
    delivery: { workerId: "doomed", leaseMs: LEASE_MS, backoff: { baseMs: 100, maxMs: 1_000 } },
    live: { timers: frozen, recoveryIntervalMs: 0 },
  });
}

function arm(failpoints: string): void {
  process.env.HERALD_FAILPOINTS = failpoints;
  resetFailpoints();
}

describe("live recovery", () => {
  it("deletes the previews of a session that died while streaming (onRecover: delete)", async () => {
    h = await liveHarness({ adapter: { maxLength: 10 } });
    const doomed = doomedRuntime(h, { maxLength: 10, editRate: false }); // both previews at once
    const live = await doomed.live(h.target, { idempotencyKey: "reply:d" });
    live.update("0123456789abc"); // two previews
    await live.idle();
    expect(h.visible()).toEqual(["0123456789", "abc"]);
    await h.time.advance(LEASE_MS + 1);
    const report = await h.runtime.recoverLive();
    expect(report).toMatchObject({ deleted: 1, finalized: 0, kept: 0 });
    expect(h.visible()).toEqual([]);
    expect(await h.store.getIntentByIdempotencyKey("reply:d")).toBeUndefined(); // no final invented
  });

  it("keeps them as the message with onRecover: keep, so a re-run with the key adds nothing", async () => {
    h = await liveHarness();
    const doomed = doomedRuntime(h);
    const live = await doomed.live(h.target, { idempotencyKey: "reply:k", onRecover: "keep" });
    live.update("half an ans");
    await live.idle();
    await h.time.advance(LEASE_MS + 1);
    expect(await h.runtime.recoverLive()).toMatchObject({ kept: 1 });
    expect(h.visible()).toEqual(["half an ans"]);
    const rerun = await h.runtime.live(h.target, { idempotencyKey: "reply:k" });
    expect(rerun.replayed).toBe(true);
    await rerun.finalize("the whole answer");
    expect(h.visible()).toEqual(["half an ans"]);
  });

  it("deletes the previews left when the process died after the final was accepted", async () => {
    h = await liveHarness();
    const doomed = doomedRuntime(h);
    const live = await doomed.live(h.target, { idempotencyKey: "reply:f", staleAfterMs: 0 });
    live.update("draft");
    await live.idle();
    arm("live.after_final_accept=throw");
    await expect(h.drive(live.finalize("final"))).rejects.toThrow(/live.after_final_accept/);
    expect(h.visible()).toEqual(["draft", "final"]); // the crash window: both visible
    arm("");
    await h.time.advance(LEASE_MS + 1);
    expect(await h.runtime.recoverLive()).toMatchObject({ finalized: 1 });
    expect(h.visible()).toEqual(["final"]);
  });

  it("finds a preview whose send landed just before the crash (reconcile) and deletes it", async () => {
    h = await liveHarness({ adapter: { reconcile: true } });
    const doomed = doomedRuntime(h, { reconcile: true });
    const live = await doomed.live(h.target, { idempotencyKey: "reply:p" });
    arm("live.after_preview=throw");
    live.update("first words");
    await live.idle();
    arm("");
    expect(h.visible()).toEqual(["first words"]); // on the platform, never recorded
    await h.time.advance(LEASE_MS + 1);
    expect(await h.runtime.recoverLive()).toMatchObject({ deleted: 1 });
    expect(h.visible()).toEqual([]);
  });

  it("waits for a final that is still queued, then deletes the previews once it lands", async () => {
    h = await liveHarness();
    const live = await h.runtime.live(h.target, {
      idempotencyKey: "reply:q",
      staleAfterMs: 0,
      waitMs: 3_000,
    });
    live.update("draft");
    await live.idle();
    h.platform.failNext(
      { type: "status", status: 429, code: "rate_limited", retryAfterS: 60 },
      1,
      "send",
    );
    const error = await h.drive(live.finalize("final"), 100, 3_500).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryPendingError);
    expect(h.visible()).toEqual(["draft"]);
    expect(await h.runtime.recoverLive()).toMatchObject({ waiting: 1 });
    expect(h.visible()).toEqual(["draft"]); // never deleted before the final is accepted
    await h.time.advance(60_000);
    h.runtime.worker.kick();
    const sent = await h.runtime.worker.waitFor(
      (await h.store.getIntentByIdempotencyKey("reply:q"))?.id ?? "",
      5_000,
    );
    expect(sent?.status).toBe("sent");
    expect(await h.runtime.recoverLive()).toMatchObject({ finalized: 1 });
    expect(h.visible()).toEqual(["final"]);
  });

  it("cleans up a dead session before a re-run under the same key streams again", async () => {
    h = await liveHarness();
    const doomed = doomedRuntime(h);
    const first = await doomed.live(h.target, { idempotencyKey: "reply:r" });
    first.update("old partial");
    await first.idle();
    await h.time.advance(LEASE_MS + 1);
    const rerun = await h.runtime.live(h.target, { idempotencyKey: "reply:r" });
    expect(h.visible()).toEqual([]);
    rerun.update("new answer");
    await rerun.idle();
    await h.time.advance(INTERVAL);
    await h.drive(rerun.finalize());
    expect(h.visible()).toEqual(["new answer"]);
  });
});
