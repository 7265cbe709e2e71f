/**
 * [H19] The delivery worker leases ahead: up to `concurrency` more intents than it has slots
 * wait for one, and a slot is handed on as soon as its attempt's platform calls answered, before
 * that attempt writes its outcome. So the next attempt's `sending` write joins the same group
 * commit as the finished one's `sent` (one transaction per round of calls, not three: lease,
 * `sending`, outcome), platform calls in flight never exceed `concurrency`, and a worker being
 * stopped gives the leases it took ahead back instead of starting them.
 */
import { setImmediate as tick } from "node:timers/promises";
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

let open: { runtime: MessageRuntime; store: SqliteStateStore } | undefined;
let release = (): void => {};
afterEach(async () => {
  release();
  await open?.runtime.stop().catch(() => {});
  await open?.store.close().catch(() => {});
  open = undefined;
});

function setup(transport: FakeTransport, concurrency: number) {
  // No time budget on a group commit: on a busy machine a preempted group would run past its
  // 2-4 ms budget and split in two; what is counted here is how the writes are grouped.
  const store = new SqliteStateStore({ path: ":memory:", groupCommit: { maxGroupMs: 60_000 } });
  const runtime = createMessageRuntime({
    store,
    adapters: [createFakeAdapter({ transport })],
    delivery: { concurrency, pollIntervalMs: 5, leaseMs: 10_000 },
  });
  open = { runtime, store };
  return { runtime, store };
}

/**
 * A transport whose calls wait, in order, until `next()` lets the oldest one through; after
 * `release()`, every call goes through.
 */
function gatedCalls(platform: FakePlatform) {
  const direct = inProcessTransport(platform);
  const held: Array<() => void> = [];
  const chats: string[] = [];
  let open = false;
  const transport: FakeTransport = async (call) => {
    chats.push("chat" in call ? call.chat : "");
    if (!open) await new Promise<void>((r) => held.push(r));
    return direct(call);
  };
  const next = () => held.shift()?.();
  release = () => {
    open = true;
    for (const r of held.splice(0)) r();
  };
  return { transport, chats, next };
}

const leasedCount = async (store: SqliteStateStore) =>
  (await store.listIntents()).filter((i) => i.leaseOwner !== undefined).length;

const backlog = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    idempotencyKey: `ahead-${i}`,
    message: outboundMessage(`m${i}`, { target: { id: `chat-${i}` } }),
  }));

describe("delivery worker leasing ahead", () => {
  it("a finished call's slot starts the next attempt in the same group commit as its outcome", async () => {
    const platform = new FakePlatform();
    const direct = inProcessTransport(platform);
    let inFlight = 0;
    let most = 0;
    let answered = 0;
    let groupsAtLastCall = 0;
    const n = 64;
    const { runtime, store } = setup(async (call) => {
      most = Math.max(most, ++inFlight);
      await tick(); // answers on the next turn of the loop, as a fast platform would
      inFlight--;
      // Transactions up to the last call (the polls that find nothing afterwards do not count).
      if (++answered === n) groupsAtLastCall = store.groupCommitStats.groups;
      return direct(call);
    }, 4);
    await store.enqueueIntents(backlog(n));
    const before = store.groupCommitStats.groups;
    await runtime.start();
    await eventually(
      () => store.countIntents(),
      (c) => c.sent === n,
      10_000,
    );
    const groups = groupsAtLastCall - before;
    expect(platform.visible()).toHaveLength(n);
    expect(most).toBe(4); // calls in flight: every slot used, never more
    // 16 rounds of 4 calls. Each round's outcomes and the next round's `sending` share one
    // transaction, leases riding along: 16 to 25 transactions measured (a lease now and then
    // commits on its own). Leasing only for free slots once the outcome committed takes a
    // lease, a `sending` and an outcome transaction per round: 46 to 49 measured.
    expect(groups).toBeLessThanOrEqual(28);
  });

  it("a stopping worker gives back the leases it took ahead and starts none of them", async () => {
    const platform = new FakePlatform();
    const direct = inProcessTransport(platform);
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { runtime, store } = setup(async (call) => {
      await gate;
      return direct(call);
    }, 2);
    await store.enqueueIntents(backlog(6));
    await runtime.start();
    // Two calls in flight (held at the gate), two more intents leased ahead for their slots.
    await eventually(
      async () => (await store.listIntents()).filter((i) => i.leaseOwner !== undefined).length,
      (leased) => leased === 4,
    );
    expect((await store.listIntents()).filter((i) => i.status === "sending")).toHaveLength(2);
    const stopped = runtime.stop();
    release();
    await stopped;
    const intents = await store.listIntents();
    expect(intents.filter((i) => i.status === "sent")).toHaveLength(2);
    // The two leased ahead were given back unstarted, like the two never leased.
    const rest = intents.filter((i) => i.status !== "sent");
    expect(rest.map((i) => [i.status, i.attempt, i.leaseOwner])).toEqual(
      Array(4).fill(["pending", 0, undefined]),
    );
    expect(platform.visible()).toHaveLength(2);
  });

  it("a call that did not lease ahead gets the next free slot before the intents leased ahead", async () => {
    const platform = new FakePlatform();
    const gated = gatedCalls(platform);
    const { runtime, store } = setup(gated.transport, 2);
    await store.enqueueIntents(backlog(6));
    await runtime.start();
    // Two calls held, two intents leased ahead waiting for their slots.
    await eventually(
      () => leasedCount(store),
      (n) => n === 4,
    );
    // A send without an intent (a live preview edit queues the same way) asks for a slot.
    const direct = runtime.send(outboundMessage("now", { target: { id: "direct" } }), {
      durability: "disabled",
    });
    await tick();
    gated.next(); // a slot frees
    await eventually(
      () => gated.chats.length,
      (n) => n >= 3,
    );
    // It went before the two leased ahead: without leasing ahead they would not be leased yet.
    expect(gated.chats[2]).toBe("direct");
    release();
    await direct;
  });

  it("a stopping worker gives its leases taken ahead back at once, while its calls still run", async () => {
    const platform = new FakePlatform();
    const gated = gatedCalls(platform);
    const { runtime, store } = setup(gated.transport, 2);
    const other = createMessageRuntime({
      store,
      adapters: [createFakeAdapter({ transport: inProcessTransport(platform) })],
      delivery: { concurrency: 2, pollIntervalMs: 5, leaseMs: 10_000, workerId: "other" },
    });
    await store.enqueueIntents(backlog(6));
    await runtime.start();
    await eventually(
      () => leasedCount(store),
      (n) => n === 4,
    );
    const stopped = runtime.stop();
    await other.start();
    try {
      // The other process delivers the four not in flight here (two were leased ahead) while
      // the first worker's two calls are still held: it need not wait for them to answer.
      await eventually(
        () => store.countIntents(),
        (c) => c.sent === 4,
        2_000,
      );
      expect(gated.chats).toHaveLength(2);
      release();
      await stopped;
      expect(platform.visible()).toHaveLength(6);
    } finally {
      release();
      await other.stop();
    }
  });
});
