/**
 * [H19] item 2 / [H20] item 6: with the store in a worker thread the main event loop does not
 * wait on SQLite. A burst of 2,000 durable writes (synchronous = FULL, group commit on) is
 * called at once while `monitorEventLoopDelay` samples the main thread's loop every millisecond.
 *
 * - On this machine's disk: the worker store's p99 loop delay stays under 50 ms (a wide bound
 *   for a loaded 2-core machine; the in-thread store's figure is printed next to it).
 * - On a slow disk (every COMMIT takes 50 ms more: the `store.commit` failpoint blocks the
 *   committing thread, as a long fsync does), side by side: the in-thread store holds the loop
 *   for every commit (p99 ≥ 40 ms) while the worker store's p99 stays under 25 ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { resetFailpoints } from "../../../failpoint.ts";
import { newIntent } from "../../../testing/fixtures.ts";
import { scaledMs } from "../../../testing/timeScale.ts";
import type { MessageStateStore } from "../../MessageStateStore.ts";
import { SqliteStateStore } from "../SqliteStateStore.ts";
import { openSqliteStateStore } from "./SqliteWorkerStore.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-sqlite-loop-"));
let n = 0;
const freshPath = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.HERALD_FAILPOINTS;
  resetFailpoints();
});

type Delay = { p99Ms: number; maxMs: number };
const show = (d: Delay) => `p99 ${d.p99Ms.toFixed(1)} ms (max ${d.maxMs.toFixed(1)})`;

/** 2,000 one-intent writes called at once; the main loop's delay while they commit. */
async function burst(store: MessageStateStore): Promise<Delay> {
  const writes = Array.from({ length: 2_000 }, (_, i) =>
    newIntent(undefined, { idempotencyKey: `b${i}` }),
  );
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // The monitor records from its second tick on.
  await new Promise((r) => setTimeout(r, 10));
  const results = await Promise.all(writes.map((w) => store.enqueueIntents([w])));
  // A loop held until the end is recorded only on the next tick.
  await new Promise((r) => setTimeout(r, 10));
  loop.disable();
  expect(results.flat().filter((r) => r.created)).toHaveLength(2_000);
  return { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 };
}

async function both(): Promise<{ inThread: Delay; worker: Delay }> {
  const local = new SqliteStateStore({ path: freshPath(), synchronous: "FULL" });
  const inThread = await burst(local);
  await local.close();
  const remote = await openSqliteStateStore({ path: freshPath(), synchronous: "FULL" });
  const worker = await burst(remote);
  await remote.close();
  return { inThread, worker };
}

describe("event-loop health while a burst of durable writes commits", () => {
  // Latency bounds (a benchmark's kind of claim) scaled by HERALD_TEST_TIME_SCALE: exact on an
  // idle machine, looser on a busy one, where every loop's delay stretches.
  it("keeps the main loop's p99 delay under 50 ms on this disk (idle machine)", async () => {
    const { inThread, worker } = await both();
    const summary = `in-thread ${show(inThread)}, worker ${show(worker)}`;
    console.log(`real disk: ${summary}`);
    expect(worker.p99Ms, summary).toBeLessThan(scaledMs(50));
  });

  it("keeps the loop running on a slow disk, where the in-thread store holds it for every commit", async () => {
    process.env.HERALD_FAILPOINTS = "store.commit=delay:50";
    resetFailpoints();
    const { inThread, worker } = await both();
    const summary = `in-thread ${show(inThread)}, worker ${show(worker)}`;
    console.log(`slow disk (+50 ms per COMMIT): ${summary}`);
    expect(inThread.p99Ms, summary).toBeGreaterThanOrEqual(40);
    expect(worker.p99Ms, summary).toBeLessThan(scaledMs(25));
  });
});
