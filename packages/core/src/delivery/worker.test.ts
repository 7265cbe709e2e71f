import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { testTimeScale } from "../testing/timeScale.ts";
import { deliveryHarness, eventually, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("delivery worker", () => {
  it("delivers 1,000 intents over 10 targets in enqueue order despite random transient failures", async () => {
    h = await deliveryHarness({
      realClock: true,
      delivery: { concurrency: 8, backoff: { baseMs: 1, maxMs: 4, maxAttempts: 100 } },
    });
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const original = h.platform.call.bind(h.platform);
    h.platform.call = (c) => {
      if (c.op === "send" && random() < 0.2) h?.platform.failNext({ type: "refuse" });
      return original(c);
    };
    await h.runtime.worker.stop();
    const inputs = Array.from({ length: 1_000 }, (_, i) => ({
      idempotencyKey: `order-${i}`,
      message: outboundMessage(`${i}`, { target: { id: `t${i % 10}` } }),
    }));
    await h.store.enqueueIntents(inputs);
    await h.runtime.start();
    await eventually(
      () => h?.store.countIntents() ?? Promise.resolve({ sent: 0 }),
      (c) => c.sent === 1_000,
      30_000,
    );
    for (let t = 0; t < 10; t++) {
      const seen = h.platform.visible(`t${t}`).map((m) => Number(m.text));
      expect(seen).toEqual(Array.from({ length: 100 }, (_, k) => k * 10 + t));
    }
    expect(h.platform.calls.filter((c) => c.outcome === "refused").length).toBeGreaterThan(100);
  });

  it("renews the lease of a slow send so a second worker never takes it over", async () => {
    const platform = new FakePlatform();
    const store = new SqliteStateStore({ path: ":memory:" });
    const slow = inProcessTransport(platform);
    // The send outlasts four leases; both scaled alike (HERALD_TEST_TIME_SCALE), so a busy
    // machine's late renewal timers do not let the lease lapse (load 20 failed it).
    const scale = testTimeScale();
    const adapter = createFakeAdapter({
      transport: async (call) => {
        await new Promise((r) => setTimeout(r, Math.ceil(400 * scale)));
        return slow(call);
      },
    });
    const options = { leaseMs: Math.ceil(90 * scale), pollIntervalMs: 5 };
    const a = createMessageRuntime({
      store,
      adapters: [adapter],
      delivery: { ...options, workerId: "a" },
    });
    const b = createMessageRuntime({
      store,
      adapters: [adapter],
      delivery: { ...options, workerId: "b" },
    });
    await a.start();
    await b.start();
    const receipt = await a.send(outboundMessage("slow"));
    await new Promise((r) => setTimeout(r, 100));
    await a.stop();
    await b.stop();
    expect(platform.visible()).toHaveLength(1);
    expect(receipt.platformMessageIds).toHaveLength(1);
    expect((await store.listIntents())[0]?.status).toBe("sent");
    await store.close();
  });

  it("shuts down gracefully: the in-flight send finishes and nothing stays leased", async () => {
    const platform = new FakePlatform();
    const store = new SqliteStateStore({ path: ":memory:" });
    const direct = inProcessTransport(platform);
    const adapter = createFakeAdapter({
      transport: async (call) => {
        await new Promise((r) => setTimeout(r, 100));
        return direct(call);
      },
    });
    const runtime = createMessageRuntime({
      store,
      adapters: [adapter],
      delivery: { pollIntervalMs: 5 },
    });
    await runtime.start();
    await runtime.enqueue(outboundMessage("in flight"));
    await eventually(
      () => runtime.worker.inFlightCount,
      (n) => n === 1,
    );
    await runtime.stop();
    const [intent] = await store.listIntents();
    expect(intent).toMatchObject({ status: "sent" });
    expect(intent?.leaseOwner).toBeUndefined();
    expect(platform.visible()).toHaveLength(1);
    await store.close();
  });

  it("recovers what a stopped worker left in sending: unknown_after_send, then reconciled", async () => {
    h = await deliveryHarness({ adapter: { reconcile: true } });
    await h.runtime.stop();
    const [r] = await h.store.enqueueIntents([
      { idempotencyKey: "left", message: outboundMessage("left behind") },
    ]);
    const id = r?.intent.id ?? "";
    await h.store.leaseDueIntents({ owner: "dead:1", now: h.clock(), leaseMs: 1_000, limit: 1 });
    await h.store.transitionIntents([{ id, from: "pending", to: "sending", owner: "dead:1" }]);
    h.clock.advance(1_000);
    const report = await h.runtime.worker.recover();
    expect(report.toUnknown).toBe(1);
    expect((await h.store.getIntent(id))?.status).toBe("unknown_after_send");
    await h.runtime.start();
    const intent = await h.drive(
      eventually(
        () => h?.store.getIntent(id),
        (i) => i?.status === "sent",
      ),
    );
    // Reconciliation found nothing on the platform, so it was sent once.
    expect(h.platform.visible().map((m) => m.text)).toEqual(["left behind"]);
    expect(intent?.attempt).toBe(1);
  });

  it("commits a committing intent left by a stopped worker without sending again", async () => {
    h = await deliveryHarness();
    await h.runtime.stop();
    const [r] = await h.store.enqueueIntents([
      { idempotencyKey: "c", message: outboundMessage("x") },
    ]);
    const id = r?.intent.id ?? "";
    const receipt = {
      platformMessageIds: ["77"],
      parts: [{ platformMessageId: "77", kind: "text" as const, index: 0 }],
      sentAt: 1,
    };
    await h.store.transitionIntents([{ id, from: "pending", to: "sending" }]);
    await h.store.transitionIntents([
      { id, from: "sending", to: "committing", patch: { receipt } },
    ]);
    expect((await h.runtime.worker.recover()).committed).toBe(1);
    expect(await h.store.getIntent(id)).toMatchObject({ status: "sent", receipt });
    expect(h.platform.calls).toEqual([]);
  });
});
