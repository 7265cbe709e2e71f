/**
 * [H20] item 1: under a backlog, `sending` means "the platform call is about to start" — the
 * rate-limit tokens are taken and any wait is over before it is written — and in-flight
 * platform calls never exceed `concurrency`, inline sends from `runtime.send` included.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import {
  createFakeAdapter,
  type FakeTransport,
  inProcessTransport,
} from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { eventually } from "./testing/harness.ts";

let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await runtime?.stop(200).catch(() => {});
  await store?.close();
  runtime = undefined;
  store = undefined;
});

function start(transport: FakeTransport, options: { concurrency: number; rateLimit?: number }) {
  store = new SqliteStateStore({ path: ":memory:" });
  const adapter = createFakeAdapter({
    transport,
    ...(options.rateLimit
      ? { rateLimits: [{ scope: "account" as const, limit: options.rateLimit, intervalMs: 1_500 }] }
      : {}),
  });
  runtime = createMessageRuntime({
    store,
    adapters: [adapter],
    delivery: { concurrency: options.concurrency, pollIntervalMs: 5, leaseMs: 10_000 },
  });
  return { store, runtime };
}

describe("delivery under a backlog", () => {
  it("writes `sending` only once the rate-limit tokens are taken: never more intents in `sending` than calls the bucket lets go", async () => {
    const platform = new FakePlatform();
    const forward = inProcessTransport(platform);
    const sendingAtCall: number[] = [];
    const hang = Promise.withResolvers<void>();
    const h = start(
      async (call) => {
        // What a SIGKILL now would leave "maybe sent": every intent in `sending`.
        sendingAtCall.push((await h.store.countIntents()).sending);
        await hang.promise;
        return forward(call);
      },
      { concurrency: 8, rateLimit: 2 },
    );
    await h.store.enqueueIntents(
      Array.from({ length: 8 }, (_, i) => ({
        idempotencyKey: `backlog-${i}`,
        message: outboundMessage(`m${i}`, { target: { id: `chat-${i}` } }),
      })),
    );
    await h.runtime.start();
    await eventually(
      () => sendingAtCall.length,
      (n) => n >= 2,
    );
    // Two tokens in the window: two calls started, the other six wait while still `pending`.
    expect(Math.max(...sendingAtCall)).toBeLessThanOrEqual(2);
    const counts = await h.store.countIntents();
    expect(counts.sending).toBeLessThanOrEqual(sendingAtCall.length);
    expect(counts.pending).toBeGreaterThanOrEqual(8 - sendingAtCall.length);
    hang.resolve();
    await eventually(
      () => h.store.countIntents(),
      (c) => c.sent === 8,
      10_000,
    );
    expect(platform.visible().length).toBe(8);
  });

  it("bounds in-flight platform calls by `concurrency` when many `runtime.send` calls deliver inline", async () => {
    const platform = new FakePlatform();
    const forward = inProcessTransport(platform);
    let inFlight = 0;
    let maxInFlight = 0;
    const h = start(
      async (call) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        try {
          return await forward(call);
        } finally {
          inFlight--;
        }
      },
      { concurrency: 2 },
    );
    await h.runtime.start();
    const receipts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        h.runtime.send(outboundMessage(`inline-${i}`, { target: { id: `chat-${i}` } })),
      ),
    );
    expect(receipts.every((r) => r.platformMessageIds.length === 1)).toBe(true);
    expect(platform.visible().length).toBe(12);
    expect(maxInFlight).toBe(2);
  });
});

describe("every path that calls the platform", () => {
  it("bounds in-flight calls by `concurrency` across durable sends, sends without an intent and live previews", async () => {
    const platform = new FakePlatform();
    const forward = inProcessTransport(platform);
    let inFlight = 0;
    let maxInFlight = 0;
    const h = start(
      async (call) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 15));
        try {
          return await forward(call);
        } finally {
          inFlight--;
        }
      },
      { concurrency: 2 },
    );
    await h.runtime.start();
    const durable = Array.from({ length: 6 }, (_, i) =>
      h.runtime.send(outboundMessage(`durable-${i}`, { target: { id: `chat-d${i}` } })),
    );
    const direct = Array.from({ length: 6 }, (_, i) =>
      h.runtime.send(outboundMessage(`direct-${i}`, { target: { id: `chat-x${i}` } }), {
        durability: "disabled",
      }),
    );
    const live = Array.from({ length: 4 }, async (_, i) => {
      const base = outboundMessage("", { target: { id: `chat-l${i}` } });
      const session = await h.runtime.live(base, { idempotencyKey: `live-${i}`, mode: "partial" });
      session.update(`draft ${i}`);
      await new Promise((r) => setTimeout(r, 30));
      session.update(`draft ${i}, longer`);
      return session.finalize(`final ${i}`);
    });
    await Promise.all([...durable, ...direct, ...live]);
    expect(platform.visible().map((m) => m.text)).toEqual(
      expect.arrayContaining(["durable-0", "direct-5", "final 3"]),
    );
    expect(maxInFlight).toBe(2);
  });

  it("a later part that waits for its rate-limit tokens waits as `pending` (lease kept), not `sending`", async () => {
    const platform = new FakePlatform();
    store = new SqliteStateStore({ path: ":memory:" });
    const adapter = createFakeAdapter({
      transport: inProcessTransport(platform),
      maxLength: 10,
      rateLimits: [{ scope: "chat" as const, limit: 1, intervalMs: 400 }],
    });
    runtime = createMessageRuntime({
      store,
      adapters: [adapter],
      delivery: { pollIntervalMs: 5, leaseMs: 10_000 },
    });
    await runtime.start();
    const sent = runtime.send(
      outboundMessage("aaaaaaaa bbbbbbbb cccccccc", { target: { id: "c" } }),
    );
    await eventually(
      () => platform.visible().length,
      (n) => n === 1,
    );
    await new Promise((r) => setTimeout(r, 100)); // well inside the 400 ms wait for part 2
    const [waiting] = await store.listIntents({});
    // What a SIGKILL now leaves: `pending` with part 1's receipt — recovery sends parts 2 and 3
    // (before [H20] it was `sending`, held as "maybe sent" though no call was in flight).
    expect(waiting?.status).toBe("pending");
    expect(waiting?.leaseOwner).toBe(runtime.worker.owner);
    expect(waiting?.partialReceipt?.parts).toHaveLength(1);
    const receipt = await sent;
    expect(receipt.parts).toHaveLength(3);
    expect(platform.visible().map((m) => m.text)).toHaveLength(3);
    expect(
      platform
        .visible()
        .map((m) => m.text)
        .join(""),
    ).toBe("aaaaaaaa bbbbbbbb cccccccc");
  });
});
