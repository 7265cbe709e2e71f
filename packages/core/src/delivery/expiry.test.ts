/**
 * C55 · stale reply ([H25]; `expiry.ts`): a reply older than its `maxAgeMs` is not sent — it
 * ends `expired` — while the platform answers 503 past that age; a batch part of which already
 * landed is finished instead; `maxAgeMs` comes from the send, its channel or the runtime.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { DeliveryExpiredError } from "./errors.ts";
import { deliveryHarness, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("C55 · maxAgeMs", () => {
  it("C55 the platform answers 503 for 2 minutes with maxAgeMs 60 s: the reply ends expired, never sent", async () => {
    // Retries 1 s, 2 s, 4 s … apart (the default schedule), enough attempts to outlive 60 s.
    h = await deliveryHarness({
      adapter: { idempotent: true },
      platform: { idempotent: true },
      delivery: { backoff: { baseMs: 1_000, maxMs: 10_000, maxAttempts: 50 } },
    });
    const t0 = h.clock();
    h.platform.outage({ op: "send", untilMs: t0 + 120_000, status: 503 });
    const sent = h.runtime.send(outboundMessage("too late"), { maxAgeMs: 60_000, waitMs: 600_000 });
    const error = await h.drive(sent, 1_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryExpiredError);
    const id = (error as DeliveryExpiredError).intentId;
    const intent = await h.store.getIntent(id);
    expect(intent?.status).toBe("expired");
    expect(intent?.expiresAt).toBe((intent?.createdAt ?? 0) + 60_000);
    // It was tried while young (each call refused), never after its age passed.
    const calls = h.platform.calls.filter((c) => c.op === "send");
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.outcome !== "ok" && c.at < t0 + 60_000)).toBe(true);
    // The outage ends: still nothing is sent.
    h.clock.advance(120_000);
    h.runtime.worker.kick();
    await new Promise((r) => setTimeout(r, 50));
    expect(h.platform.visible()).toEqual([]);
    expect((await h.store.getIntent(id))?.status).toBe("expired");
    expect((await h.store.countIntents()).expired).toBe(1);
  });

  it("C55 a batch part of which is already visible is finished, not expired", async () => {
    h = await deliveryHarness({
      adapter: { idempotent: true, maxLength: 10 },
      platform: { idempotent: true },
      delivery: { backoff: { baseMs: 1_000, maxMs: 10_000, maxAttempts: 50 } },
    });
    const harness = h;
    const t0 = harness.clock();
    // The first part lands; then the platform answers 503 for 2 minutes.
    const call = harness.platform.call.bind(harness.platform);
    let first = true;
    harness.platform.call = (c) => {
      const answer = call(c);
      if (first && c.op === "send") {
        first = false;
        harness.platform.outage({ op: "send", untilMs: t0 + 120_000, status: 503 });
      }
      return answer;
    };
    const sent = harness.runtime.send(outboundMessage("first part, second part"), {
      maxAgeMs: 60_000,
      waitMs: 600_000,
    });
    const receipt = await harness.drive(sent, 1_000);
    expect(receipt.platformMessageIds.length).toBeGreaterThan(1);
    expect(harness.platform.visible().map((m) => m.text)).toEqual(
      receipt.parts.map(
        (p) => harness.platform.visible().find((m) => m.id === p.platformMessageId)?.text,
      ),
    );
    expect(harness.clock()).toBeGreaterThan(t0 + 60_000); // finished after its age passed
  });

  it("C55 takes maxAgeMs from the send, else its channel, else the runtime; a bad one is a RangeError naming it", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const runtime = createMessageRuntime({
      store,
      adapters: [createFakeAdapter({ transport: inProcessTransport(new FakePlatform()) })],
      delivery: { maxAgeMs: 1_000, channelMaxAgeMs: { qa: 60_000 } },
    });
    try {
      const age = (i: { expiresAt?: number; createdAt: number }) =>
        i.expiresAt === undefined ? undefined : i.expiresAt - i.createdAt;
      expect(age(await runtime.enqueue(outboundMessage("channel")))).toBe(60_000);
      expect(age(await runtime.enqueue(outboundMessage("own"), { maxAgeMs: 5_000 }))).toBe(5_000);
      const plain = createMessageRuntime({
        store,
        adapters: [createFakeAdapter({ transport: inProcessTransport(new FakePlatform()) })],
        delivery: { maxAgeMs: 1_000 },
      });
      expect(age(await plain.enqueue(outboundMessage("runtime")))).toBe(1_000);
      await expect(runtime.enqueue(outboundMessage("bad"), { maxAgeMs: -1 })).rejects.toThrow(
        /SendOptions\.maxAgeMs must be a positive number/,
      );
      expect(() =>
        createMessageRuntime({ store, adapters: [], delivery: { maxAgeMs: 0 } }),
      ).toThrow(/delivery\.maxAgeMs must be a positive number/);
    } finally {
      await store.close();
    }
  });
});
