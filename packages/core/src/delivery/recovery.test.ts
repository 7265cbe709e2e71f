/**
 * Crash recovery picks the intent's own account adapter (DESIGN §3 "Accounts"; issue H14): a
 * `sending` intent left by a dead worker is scheduled with the settle delay of the adapter of
 * its account, not of whatever adapter the channel alone finds (none, with two accounts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";

let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await runtime?.stop(500).catch(() => {});
  await store?.close().catch(() => {});
});

describe("recovery of a crashed send with two accounts of one channel", () => {
  it("waits the settle delay of the intent's account before reconciling", async () => {
    let now = 1_000_000;
    const clock = () => now;
    const SETTLE_MS = 60_000;
    const pa = new FakePlatform({ clock });
    const pb = new FakePlatform({ clock });
    store = new SqliteStateStore({ path: ":memory:", clock });
    runtime = createMessageRuntime({
      store,
      adapters: [
        {
          adapter: createFakeAdapter({ transport: inProcessTransport(pa), requestTimeoutMs: 0 }),
          accountId: "A",
        },
        {
          adapter: createFakeAdapter({
            transport: inProcessTransport(pb),
            reconcile: true,
            requestTimeoutMs: SETTLE_MS,
          }),
          accountId: "B",
        },
      ],
      clock,
      random: () => 0.5,
      delivery: { pollIntervalMs: 5, backoff: { baseMs: 10, maxMs: 20 } },
    });
    const [r] = await store.enqueueIntents([
      { idempotencyKey: "left", message: outboundMessage("left behind", { accountId: "B" }) },
    ]);
    const id = r?.intent.id ?? "";
    await store.leaseDueIntents({ owner: "dead:1", now, leaseMs: 1_000, limit: 1 });
    await store.transitionIntents([{ id, from: "pending", to: "sending", owner: "dead:1" }]);
    now += 1_000;
    const report = await runtime.worker.recover();
    expect(report.toUnknown).toBe(1);
    const intent = await store.getIntent(id);
    expect(intent?.status).toBe("unknown_after_send");
    // Not looked up (nor replayed) before B's own settle delay has passed.
    expect(intent?.nextAttemptAt ?? 0).toBeGreaterThanOrEqual(now + SETTLE_MS);
    expect(pb.calls).toEqual([]);
  });
});
