/**
 * [H20] item 6: waiting for another process's SQLite write lock happens off the event loop —
 * timers, `/healthz` and webhooks keep running while the store waits, and the write goes through
 * once the lock is released. Both the in-thread store (async backoff between short tries) and
 * the worker-thread store (the wait happens in the worker) pass the same tests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { newIntent } from "../../testing/fixtures.ts";
import { scaledMs } from "../../testing/timeScale.ts";
import { StoreUnavailableError } from "../errors.ts";
import type { MessageStateStore } from "../MessageStateStore.ts";
import { SqliteStateStore, type SqliteStateStoreOptions } from "./SqliteStateStore.ts";
import { openSqliteStateStore } from "./worker/SqliteWorkerStore.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-sqlite-busy-"));
let n = 0;
const freshPath = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: [string, (o: SqliteStateStoreOptions) => Promise<MessageStateStore>][] = [
  ["in-thread", async (o) => new SqliteStateStore(o)],
  ["worker thread", (o) => openSqliteStateStore(o)],
];

describe.each(stores)("SqliteStateStore (%s) under another connection's write lock", (_, open) => {
  it("keeps the event loop running while it waits, and writes once the lock is released", async () => {
    const path = freshPath();
    const store = await open({ path });
    // Another "process": a second connection holding the write lock.
    const other = new DatabaseSync(path);
    other.exec("BEGIN IMMEDIATE");
    const order: string[] = [];
    const write = store.enqueueIntents([newIntent()]).then(
      () => order.push("write done"),
      (error: unknown) => order.push(`write failed: ${(error as Error).name}`),
    );
    // A timer and a read run while the write waits; the timer then releases the lock. With a
    // synchronous busy wait the timer could not fire before the write gave up.
    await new Promise<void>((resolve) =>
      setTimeout(async () => {
        order.push("timer ran");
        order.push(`read: ${(await store.countIntents()).pending} pending`);
        other.exec("COMMIT");
        resolve();
      }, 20),
    );
    await write;
    expect(order).toEqual(["timer ran", "read: 0 pending", "write done"]);
    expect((await store.countIntents()).pending).toBe(1);
    other.close();
    await store.close();
  });

  it("fails with StoreUnavailableError after busyTimeoutMs, without holding the loop for it", async () => {
    const path = freshPath();
    // Scaled (HERALD_TEST_TIME_SCALE): on a busy machine a 10 ms timer may not run within 200 ms
    // even on a free loop (load 20 failed it); a synchronous wait allows no tick however long.
    const store = await open({ path, busyTimeoutMs: scaledMs(200) });
    const other = new DatabaseSync(path);
    other.exec("BEGIN IMMEDIATE");
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const error = await store.enqueueIntents([newIntent()]).catch((e: unknown) => e);
    clearInterval(ticker);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain("enqueueIntents");
    // The loop ran timers during the wait (a synchronous wait would allow none).
    expect(ticks).toBeGreaterThan(2);
    other.exec("ROLLBACK");
    other.close();
    await store.close();
  });

  it("runs a 10 ms timer all along while another process holds the lock for 3 s", async () => {
    const path = freshPath();
    const store = await open({ path, busyTimeoutMs: 10_000 });
    const other = new DatabaseSync(path);
    other.exec("BEGIN IMMEDIATE");
    // Writes (as a gateway's webhooks and sends would) wait for the lock all along.
    const writes = Array.from({ length: 20 }, () => store.enqueueIntents([newIntent()]));
    // The timer's ticks while the lock is held, counted (not timed: a busy machine stretches
    // every gap, but a loop held by a synchronous wait runs none until the lock is released).
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    await new Promise((r) => setTimeout(r, 3_000));
    const ticksWhileHeld = ticks;
    other.exec("COMMIT");
    await Promise.all(writes);
    clearInterval(ticker);
    expect(ticksWhileHeld).toBeGreaterThan(2);
    expect((await store.countIntents()).pending).toBe(20);
    other.close();
    await store.close();
  });
});
