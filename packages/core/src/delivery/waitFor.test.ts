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

/** A SQLite store that counts `getIntent` calls. */
class CountingStore extends SqliteStateStore {
  reads = 0;
  override getIntent(id: string) {
    this.reads++;
    return super.getIntent(id);
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

function setup(platform = new FakePlatform()) {
  store = new CountingStore({ path: ":memory:" });
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
