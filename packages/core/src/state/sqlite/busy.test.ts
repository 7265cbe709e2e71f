/**
 * [H20] item 6: waiting for another process's SQLite write lock happens off the event loop —
 * timers, `/healthz` and webhooks keep running while the store waits, and the write goes through
 * once the lock is released.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { newIntent } from "../../testing/fixtures.ts";
import { StoreUnavailableError } from "../errors.ts";
import { SqliteStateStore } from "./SqliteStateStore.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-sqlite-busy-"));
let n = 0;
const freshPath = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SqliteStateStore under another connection's write lock", () => {
  it("keeps the event loop running while it waits, and writes once the lock is released", async () => {
    const path = freshPath();
    const store = new SqliteStateStore({ path });
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
    const store = new SqliteStateStore({ path, busyTimeoutMs: 200 });
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
});
