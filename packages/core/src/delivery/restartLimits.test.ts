/**
 * A runtime started right after its predecessor stopped (SIGKILL, crash, deploy) counts the
 * platform calls the predecessor made in the last window into its in-memory rate-limit buckets
 * (`ratelimit/seed.ts`): before, its first sends went straight into the platform's limits, a
 * 429 each (the Google Chat bench: 27 of 60 sends after a restart).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { RateLimitScheduler } from "./RateLimitScheduler.ts";
import { callOf } from "./ratelimit/intent.ts";
import { seedRateLimits } from "./ratelimit/seed.ts";

/** One call per chat every 2 s, declared by the adapter and enforced by the fake. */
const perChat = { scope: "chat" as const, limit: 1, intervalMs: 2_000 };
const chats = ["c1", "c2", "c3"];

const dirs: string[] = [];
const open: Array<{ runtime: MessageRuntime; store: SqliteStateStore }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.runtime.stop(0).catch(() => {});
    await o.store.close().catch(() => {});
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A runtime over the SQLite file at `path`, real clock, the fake platform's limits declared. */
async function start(path: string, platform: FakePlatform) {
  const store = new SqliteStateStore({ path });
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({ rateLimits: [perChat], transport: inProcessTransport(platform) }),
    ],
    random: () => 0.5,
    delivery: {
      pollIntervalMs: 5,
      leaseMs: 10_000,
      maxInMemoryWaitMs: 5_000,
      backoff: { baseMs: 100, maxMs: 1_000 },
    },
  });
  await runtime.start();
  const o = { runtime, store };
  open.push(o);
  return o;
}

const sendAll = (runtime: MessageRuntime, label: string) =>
  Promise.all(
    chats.map((chat) =>
      runtime.send(outboundMessage(`${label} ${chat}`, { target: { id: chat } })),
    ),
  );

describe("a restarted runtime's rate limits", () => {
  it("count the calls its predecessor made in the last window: no 429 after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-restart-limits-"));
    dirs.push(dir);
    const path = join(dir, "state.db");
    const platform = new FakePlatform({ limits: [{ ...perChat, scope: "chat" }] });

    const a = await start(path, platform);
    await sendAll(a.runtime, "before");
    // Gone at once: nothing in flight, no drain — all it knew of its buckets is lost.
    await a.runtime.stop(0);
    await a.store.close();
    open.splice(open.indexOf(a), 1);

    const b = await start(path, platform);
    await sendAll(b.runtime, "after");

    const outcomes = platform.calls.map((c) => `${c.op} ${c.outcome}`);
    expect(outcomes.filter((o) => o.includes("429"))).toEqual([]);
    expect(outcomes).toEqual(Array(6).fill("send ok"));
    expect(platform.visible().map((m) => m.text)).toEqual(
      expect.arrayContaining(chats.flatMap((c) => [`before ${c}`, `after ${c}`])),
    );
    // Each chat's second call went a full window after its first (the platform's own clock).
    for (const chat of chats) {
      const at = platform.calls.filter((c) => "chat" in c && c.chat === chat).map((c) => c.at);
      expect(at).toHaveLength(2);
      expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(perChat.intervalMs);
    }
  });

  it("seed only registered adapters' calls, in their declared buckets, from one query", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    open.push({ runtime: { stop: async () => {} } as unknown as MessageRuntime, store });
    const platform = new FakePlatform();
    const adapter = createFakeAdapter({
      rateLimits: [perChat],
      transport: inProcessTransport(platform),
    });
    const owner = "w";
    const now = Date.now();
    const enqueued = await store.enqueueIntents([
      { idempotencyKey: "k1", message: outboundMessage("a", { target: { id: "c1" } }) },
      { idempotencyKey: "k2", message: outboundMessage("b", { channel: "gone" }) },
      { idempotencyKey: "k3", message: outboundMessage("c", { target: { id: "c3" } }) },
    ]);
    const [first, gone] = enqueued.map((r) => r.intent.id);
    await store.leaseDueIntents({ owner, now, leaseMs: 10_000, limit: 10 });
    for (const id of [first, gone]) {
      await store.transitionIntents([{ id: id ?? "", owner, from: "pending", to: "sending" }]);
    }
    const scheduler = new RateLimitScheduler();
    let queries = 0;
    const counting = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === "listIntents") queries += 1;
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const report = await seedRateLimits(
      {
        store: counting,
        scheduler,
        clock: Date.now,
        adapterFor: (channel) => (channel === "qa" ? adapter : undefined),
      },
      [adapter],
    );
    expect(report.counted).toBe(1); // c1's call; "gone" has no adapter, c3 made no call
    expect(queries).toBe(1);
    const [c1, , c3] = enqueued.map((r) => callOf(adapter, r.intent));
    if (!c1 || !c3) throw new Error("not enqueued");
    expect(scheduler.peek([perChat], c1, Date.now())).toBeGreaterThan(0);
    expect(scheduler.peek([perChat], c3, Date.now())).toBe(0);
    expect(scheduler.peek([perChat], c1, Date.now() + perChat.intervalMs + 5)).toBe(0);
  });
});
