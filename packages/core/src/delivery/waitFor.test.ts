/**
 * `runtime.send` waits for its receipt without reading back what this process already knows
 * (the enqueue result, the inline attempt's outcome, an outcome the worker settled meanwhile),
 * and still sees what another process does to the intent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HELD_FOR_OPERATOR_AT } from "../message/intent.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { scaledMs } from "../testing/timeScale.ts";

/**
 * A SQLite store that counts `getIntent` calls and `getIntentStatuses` polls; its `getIntent`
 * can be made slow (`readDelayMs`, as over a network) or fail for one id (`unreadable`), and
 * it records how many reads were in flight at once (`maxReadsInFlight`).
 */
class CountingStore extends SqliteStateStore {
  reads = 0;
  polls: number[] = [];
  readDelayMs = 0;
  unreadable: string | undefined;
  readsInFlight = 0;
  maxReadsInFlight = 0;
  override async getIntent(id: string) {
    this.reads++;
    this.readsInFlight++;
    this.maxReadsInFlight = Math.max(this.maxReadsInFlight, this.readsInFlight);
    try {
      if (this.readDelayMs > 0) await new Promise((r) => setTimeout(r, this.readDelayMs));
      if (id === this.unreadable) throw new Error("row unreadable");
      return super.getIntent(id);
    } finally {
      this.readsInFlight--;
    }
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
    const sent = runtime.send(outboundMessage("never"), { waitMs: scaledMs(5_000) });
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
  /**
   * `n` sends queued behind an intent nobody delivers (the worker is stopped). Their wait
   * outlasts any test (an hour) unless given: what ends one is what the poll saw, not a timer,
   * so no test here asserts on elapsed time.
   */
  async function queued(
    n: number,
    Store: typeof CountingStore = CountingStore,
    waitMs = 3_600_000,
  ) {
    const { store, runtime } = setup(new FakePlatform(), Store);
    await runtime.start();
    await runtime.worker.stop();
    await runtime.enqueue(outboundMessage("first", { target: { id: "blocked" } }));
    const outcomes = Array.from({ length: n }, (_, i) =>
      runtime.send(outboundMessage(`q${i}`, { target: { id: "blocked" } }), { waitMs }).then(
        () => "sent",
        (e: Error) => e.name,
      ),
    );
    let ids: string[] = [];
    for (let i = 0; i < 400 && ids.length < n; i++) {
      await new Promise((r) => setTimeout(r, 5));
      ids = (await store.listIntents({ statuses: ["pending"], limit: 2_000 }))
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
    expect(new Set(await Promise.all(outcomes))).toEqual(new Set(["DeliveryCancelledError"]));
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

  it("a failed poll ends no wait; a store that stays unreadable ends them with its error", async () => {
    const { store, outcomes, ids } = await queued(3);
    const read = store.getIntentStatuses.bind(store);
    let blips = 1;
    store.getIntentStatuses = (x) =>
      blips-- > 0 ? Promise.reject(new Error("connection reset")) : read(x);
    // The blip's poll and a good one: every send still waits (they will be sent).
    const early = await Promise.race([Promise.all(outcomes), sleep(1_200).then(() => "waiting")]);
    expect(early).toBe("waiting");
    expect(blips).toBeLessThan(0);
    await store.transitionIntents([{ id: ids[0] as string, from: "pending", to: "cancelled" }]);
    expect(await outcomes[0]).toBe("DeliveryCancelledError");
    // Down for good: three failed polls in a row (about 1.5 s) end the other waits.
    store.getIntentStatuses = () => Promise.reject(new Error("disk on fire"));
    const t0 = Date.now();
    expect(await Promise.all(outcomes.slice(1))).toEqual(["Error", "Error"]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900); // a lower bound holds under load
  });

  it("a wait longer than a timer runs (waitMs Infinity, 2^31 ms and more) still waits for news", async () => {
    const { store, outcomes, ids } = await queued(1, CountingStore, Number.POSITIVE_INFINITY);
    // Before: `setTimeout(…, Infinity)` fires after 1 ms, and the send threw DeliveryPendingError.
    const early = await Promise.race([outcomes[0], sleep(700).then(() => "waiting")]);
    expect(early).toBe("waiting");
    await store.transitionIntents([{ id: ids[0] as string, from: "pending", to: "cancelled" }]);
    expect(await outcomes[0]).toBe("DeliveryCancelledError");
  });

  it("a wait without a deadline (waitMs NaN) ends at once instead of waking every millisecond", async () => {
    const { store, outcomes } = await queued(1, CountingStore, Number.NaN);
    expect(await outcomes[0]).toBe("DeliveryPendingError");
    expect(store.polls).toEqual([]);
  });

  it("a settled intent whose row cannot be read ends only the waits on it", async () => {
    const { store, outcomes, ids } = await queued(3);
    store.unreadable = ids[0];
    await store.transitionIntents([{ id: ids[0] as string, from: "pending", to: "cancelled" }]);
    expect(await outcomes[0]).toBe("Error");
    // Before: the read's error ended the other waits of its poll too.
    const others = await Promise.race([Promise.all(outcomes.slice(1)), sleep(1_200)]);
    expect(others).toBeUndefined();
    await store.transitionIntents(
      ids.slice(1).map((id) => ({ id, from: "pending" as const, to: "cancelled" as const })),
    );
    expect(await Promise.all(outcomes.slice(1))).toEqual([
      "DeliveryCancelledError",
      "DeliveryCancelledError",
    ]);
  });

  it("a store without status reads is read side by side: a slow one still shows a cancel to 200 waits", async () => {
    const { store, outcomes, ids } = await queued(200, WholeRowStore);
    store.readDelayMs = 5;
    await store.transitionIntents(
      ids.map((id) => ({ id, from: "pending" as const, to: "cancelled" as const })),
    );
    expect(new Set(await Promise.all(outcomes))).toEqual(new Set(["DeliveryCancelledError"]));
    // Before: one read after another, 200 × 5 ms per poll (1.8 s); each wait read its own, side
    // by side (0.4 s). Asserted as reads in flight at once, not as elapsed time.
    expect(store.maxReadsInFlight).toBeGreaterThan(1);
  });

  it("an intent another process holds for an operator ends the wait (status and nextAttemptAt polled)", async () => {
    const { store, outcomes, ids } = await queued(2);
    const id = ids[0] as string;
    await store.transitionIntents([{ id, from: "pending", to: "sending" }]);
    await store.transitionIntents([
      {
        id,
        from: "sending",
        to: "unknown_after_send",
        patch: { nextAttemptAt: HELD_FOR_OPERATOR_AT },
      },
    ]);
    // The wait is an hour: a DeliveryPendingError now is the hold seen by the poll.
    expect(await outcomes[0]).toBe("DeliveryPendingError");
    // Not held (a retry scheduled): still waiting.
    expect(await Promise.race([outcomes[1], sleep(600)])).toBeUndefined();
  });

  it(
    "more than 1,000 waits are asked about in chunks, and all see a cancel",
    async () => {
      const { store, outcomes, ids } = await queued(1_100);
      await store.transitionIntents(
        ids.map((id) => ({ id, from: "pending" as const, to: "cancelled" as const })),
      );
      expect(new Set(await Promise.all(outcomes))).toEqual(new Set(["DeliveryCancelledError"]));
      expect(Math.max(...store.polls)).toBe(1_000);
    },
    scaledMs(20_000),
  );

  it("waits that time out leave nothing to poll: the poll stops", async () => {
    const { store, outcomes } = await queued(20, CountingStore, 700);
    expect(new Set(await Promise.all(outcomes))).toEqual(new Set(["DeliveryPendingError"]));
    const polls = store.polls.length;
    await sleep(1_100);
    expect(store.polls.length).toBe(polls);
  });

  it("a closed store ends the waits with StoreUnavailableError", async () => {
    const { store, outcomes } = await queued(3);
    await runtime?.stop();
    await store.close();
    expect(await Promise.all(outcomes)).toEqual([
      "StoreUnavailableError",
      "StoreUnavailableError",
      "StoreUnavailableError",
    ]);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
