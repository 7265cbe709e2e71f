/**
 * [H19] The delivery loop leases when something may be due, not after every attempt: one
 * `runtime.send` at a time (its first attempt folded into the enqueue) costs no lease query,
 * where each used to cost two (one when its call answered, one when it settled). Whatever an
 * attempt's end can make due is still leased at once: a message queued behind it in its chat,
 * a retry, an enqueue from this process. The poll interval is an hour here, so anything left to
 * the poll times the test out, however busy the machine (no assertion on elapsed time).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import type { LeaseRequest } from "../state/types.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { eventually } from "./testing/harness.ts";

/** A SQLite store that counts the delivery loop's lease queries. */
class CountingStore extends SqliteStateStore {
  leases = 0;
  override leaseDueIntents(request: LeaseRequest) {
    this.leases++;
    return super.leaseDueIntents(request);
  }
}

let open: { runtime: MessageRuntime; store: CountingStore } | undefined;
afterEach(async () => {
  await open?.runtime.stop().catch(() => {});
  await open?.store.close().catch(() => {});
  open = undefined;
});

/** A runtime with an hour's poll; `backoffMs` is every retry's backoff. */
function setup(platform = new FakePlatform(), backoffMs = 1) {
  const store = new CountingStore({ path: ":memory:" });
  const runtime = createMessageRuntime({
    store,
    adapters: [createFakeAdapter({ transport: inProcessTransport(platform) })],
    delivery: {
      concurrency: 4,
      pollIntervalMs: 3_600_000,
      backoff: { baseMs: backoffMs, maxMs: backoffMs, jitter: 0 },
    },
  });
  open = { runtime, store };
  return { runtime, store, platform };
}

describe("the delivery loop leases when something may be due", () => {
  it("one send at a time makes no lease query (two per send before)", async () => {
    const { runtime, store, platform } = setup();
    await runtime.start();
    await runtime.send(outboundMessage("warm-up"));
    // The lease after the warm-up found nothing with nothing in flight: no backlog now.
    await eventually(
      () => store.leases,
      (n) => n >= 1,
    );
    const before = store.leases;
    for (let i = 0; i < 20; i++) await runtime.send(outboundMessage(`m${i}`));
    await new Promise((r) => setTimeout(r, 20));
    expect(platform.visible("chat-1").length).toBe(21);
    expect(store.leases - before).toBe(0);
  });

  it("a message queued behind one in flight is leased as soon as that one settles", async () => {
    const { runtime, platform } = setup();
    await runtime.start();
    await runtime.send(outboundMessage("warm-up"));
    // Both at once to one chat: the second waits behind the first, for the loop.
    await Promise.all([runtime.send(outboundMessage("a")), runtime.send(outboundMessage("b"))]);
    expect(platform.visible("chat-1").map((m) => m.text)).toEqual(["warm-up", "a", "b"]);
  });

  it("enqueued messages and a retry after a failed call are leased without waiting for the poll", async () => {
    const { runtime, platform } = setup();
    await runtime.start();
    await runtime.send(outboundMessage("warm-up"));
    platform.failNext({ type: "refuse" }, 1, "send");
    const queued = [0, 1, 2].map((i) =>
      runtime.enqueue(outboundMessage(`e${i}`, { target: { id: `chat-${i}` } })),
    );
    await Promise.all(queued);
    await eventually(
      () => [0, 1, 2].every((i) => platform.visible(`chat-${i}`).some((m) => m.text === `e${i}`)),
      (all) => all,
    );
    expect(platform.calls.filter((c) => c.op === "send" && c.outcome !== "ok").length).toBe(1);
  });

  it("a retry due after its backoff is leased when it is due, not at the next poll", async () => {
    // A 150 ms backoff: the lease the failed attempt's end sets off runs before the retry is
    // due and finds nothing; without a wake at the retry's time the loop slept its hour's poll.
    const { runtime, platform } = setup(new FakePlatform(), 150);
    await runtime.start();
    await runtime.send(outboundMessage("warm-up"));
    platform.failNext({ type: "refuse" }, 1, "send");
    const t0 = Date.now();
    await runtime.enqueue(outboundMessage("r", { target: { id: "chat-r" } }));
    await eventually(
      () => platform.visible("chat-r").some((m) => m.text === "r"),
      (seen) => seen,
    );
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(150); // not before its backoff (a lower bound holds under load)
    expect(platform.calls.filter((c) => c.op === "send" && c.outcome !== "ok").length).toBe(1);
  });
});
