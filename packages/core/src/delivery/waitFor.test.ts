/**
 * `runtime.send` waits for its receipt without reading back what this process already knows
 * (the enqueue result, the inline attempt's outcome, an outcome the worker settled meanwhile),
 * and still sees what another process does to the intent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";

/** A SQLite store that counts `getIntent` calls and `getIntentStatuses` polls. */
class CountingStore extends SqliteStateStore {
  reads = 0;
  polls: number[] = [];
  override getIntent(id: string) {
    this.reads++;
    return super.getIntent(id);
  }
  override getIntentStatuses(ids: readonly string[]) {
    this.polls.push(ids.length);
    return super.getIntentStatuses(ids);
  }
}

/** The same without `getIntentStatuses` (an older or third-party store). */
class WholeRowStore extends CountingStore {
  constructor(options: { path: string }) {
    super(options);
    Object.defineProperty(this, "getIntentStatuses", { value: undefined });
  }
}

let runtime: MessageRuntime | undefined;
let store: CountingStore | undefined;
afterEach(async () => {
  await runtime?.stop();
  await store?.close();
  runtime = undefined;
  store = undefined;
});

function setup(platform = new FakePlatform(), Store: typeof CountingStore = CountingStore) {
  store = new Store({ path: ":memory:" });
  const adapter = createFakeAdapter({ transport: inProcessTransport(platform) });
  runtime = createMessageRuntime({
    store,
    adapters: [adapter],
    delivery: { concurrency: 4, pollIntervalMs: 5 },
  });
  return { store, runtime, platform };
}

describe("runtime.send waits on what it knows", () => {
  it("reads nothing back for sends delivered inline or by the worker in this process", async () => {
    const { store, runtime, platform } = setup();
    await runtime.start();
    const started = Date.now();
    // One at a time: each is first in its chat and delivered inline.
    for (let i = 0; i < 3; i++) await runtime.send(outboundMessage(`a${i}`));
    // All at once in one chat: the first inline, the rest queued behind it for the worker.
    const receipts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runtime.send(outboundMessage(`b${i}`, { target: { id: "busy" } })),
      ),
    );
    expect(receipts.every((r) => r.platformMessageIds.length === 1)).toBe(true);
    expect(platform.visible("busy").map((m) => m.text)).toEqual(
      Array.from({ length: 20 }, (_, i) => `b${i}`),
    );
    // A send still waiting after 500 ms polls the store (another process could deliver it):
    // only a slow machine gets there. Before, every send read its intent back at least once.
    if (Date.now() - started < 450) expect(store.reads).toBe(0);
    else expect(store.reads).toBeLessThan(23);
  });

  it("sees another process's change at the next poll (a cancel while queued)", async () => {
    const { store, runtime } = setup();
    await runtime.start();
    await runtime.worker.stop();
    // Queued behind an intent nobody delivers (the worker is stopped): never sent inline.
    const blocker = await runtime.enqueue(outboundMessage("first"));
    const sent = runtime.send(outboundMessage("never"), { waitMs: 5_000 });
    const outcome = sent.then(
      () => "sent",
      (e: Error) => e.name,
    );
    let pending: string | undefined;
    for (let i = 0; i < 100 && !pending; i++) {
      await new Promise((r) => setTimeout(r, 5));
      pending = (await store.listIntents({ statuses: ["pending"] })).find(
        (i) => i.id !== blocker.id,
      )?.id;
    }
    expect(pending).toBeDefined();
    // An operator (another process) cancels it, as `herald queue cancel` does.
    await store.transitionIntents([
      { id: pending as string, from: "pending", to: "cancelled", patch: {} },
    ]);
    expect(await outcome).toBe("DeliveryCancelledError");
  });

  it("a wait that times out without news reads the store once for its answer", async () => {
    const { store, runtime } = setup();
    await runtime.start();
    await runtime.worker.stop();
    await runtime.enqueue(outboundMessage("first")); // nobody delivers it: "late" stays queued
    const error = await runtime.send(outboundMessage("late"), { waitMs: 30 }).catch((e) => e);
    expect((error as Error).name).toBe("DeliveryPendingError");
    expect(store.reads).toBe(1);
  });
});

describe("the poll for changes made elsewhere", () => {
  /** `n` sends queued behind an intent nobody delivers (the worker is stopped). */
  async function queued(n: number, Store: typeof CountingStore = CountingStore) {
    const { store, runtime } = setup(new FakePlatform(), Store);
    await runtime.start();
    await runtime.worker.stop();
    await runtime.enqueue(outboundMessage("first", { target: { id: "blocked" } }));
    const outcomes = Array.from({ length: n }, (_, i) =>
      runtime
        .send(outboundMessage(`q${i}`, { target: { id: "blocked" } }), { waitMs: 10_000 })
        .then(
          () => "sent",
          (e: Error) => e.name,
        ),
    );
    let ids: string[] = [];
    for (let i = 0; i < 200 && ids.length < n; i++) {
      await new Promise((r) => setTimeout(r, 5));
      ids = (await store.listIntents({ statuses: ["pending"], limit: 1_000 }))
        .filter((x) => x.message.body?.markdown !== "first")
        .map((x) => x.id);
    }
    expect(ids).toHaveLength(n);
    return { store, outcomes, ids };
  }

  it("asks about every waiting send in one status read per 500 ms, and reads whole rows only of those settled", async () => {
    const { store, outcomes, ids } = await queued(50);
    const readsBefore = store.reads;
    await new Promise((r) => setTimeout(r, 1_100));
    // Two or three ticks, each one read for all 50 (before: 50 whole-row reads per tick).
    expect(store.polls.length).toBeGreaterThanOrEqual(1);
    expect(store.polls.length).toBeLessThanOrEqual(3);
    expect(store.polls.every((n) => n === 50)).toBe(true);
    expect(store.reads).toBe(readsBefore);
    // An operator cancels them (another process, as `herald queue cancel` does).
    await store.transitionIntents(
      ids.map((id) => ({ id, from: "pending" as const, to: "cancelled" as const })),
    );
    const t0 = Date.now();
    expect(new Set(await Promise.all(outcomes))).toEqual(new Set(["DeliveryCancelledError"]));
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(store.reads - readsBefore).toBe(50);
  });

  it("a store without status reads is polled intent by intent, and the cancel is still seen", async () => {
    const { store, outcomes, ids } = await queued(5, WholeRowStore);
    await store.transitionIntents(
      ids.map((id) => ({ id, from: "pending" as const, to: "cancelled" as const })),
    );
    expect(new Set(await Promise.all(outcomes))).toEqual(new Set(["DeliveryCancelledError"]));
    expect(store.polls).toEqual([]);
  });

  it("a poll the store cannot answer ends the waits with the store's error", async () => {
    const { store, outcomes } = await queued(3);
    store.getIntentStatuses = () => Promise.reject(new Error("disk on fire"));
    const t0 = Date.now();
    expect(await Promise.all(outcomes)).toEqual(["Error", "Error", "Error"]);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
