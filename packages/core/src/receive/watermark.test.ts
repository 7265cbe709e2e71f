/** The polling watermark tracker, and CASES C07 (Telegram polling watermark) with a real SIGKILL. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { teleUpdate } from "./testing/fakeTelegram.ts";
import type { ReceiveAckSignal } from "./types.ts";
import { createWatermarkTracker } from "./watermark.ts";

const key = { channel: "telegram", accountId: "main" };

describe("watermark tracker", () => {
  it("never persists an offset past an unfinished update", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const tracker = createWatermarkTracker({ store, key });
    expect(await tracker.load()).toBeUndefined();
    for (const id of [100, 101, 102]) tracker.begin(id);
    await tracker.complete(101);
    await tracker.complete(102);
    expect(await store.getWatermark(key)).toBe("99"); // lowest unfinished − 1
    expect(tracker.safeId()).toBe(99);
    expect(tracker.pending()).toEqual([100]);
    await tracker.complete(100);
    expect(await store.getWatermark(key)).toBe("102");
  });

  it("moves to lowest unfinished − 1 as earlier updates finish", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const tracker = createWatermarkTracker({ store, key });
    for (const id of [10, 11, 12, 13]) tracker.begin(id);
    await tracker.complete(10);
    expect(await store.getWatermark(key)).toBe("10");
    await tracker.complete(13);
    await tracker.complete(11);
    expect(await store.getWatermark(key)).toBe("11");
    expect(tracker.safeId()).toBe(11);
  });

  it("keeps an update whose ack is `retry` unfinished, and ignores redeliveries below the watermark", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    await store.setWatermark(key, "50");
    const tracker = createWatermarkTracker({ store, key });
    expect(await tracker.load()).toBe(50);
    const retry: Promise<ReceiveAckSignal> = Promise.resolve({ kind: "retry", reason: "failed" });
    const accept: Promise<ReceiveAckSignal> = Promise.resolve({ kind: "accept" });
    tracker.begin(51);
    tracker.begin(52);
    await Promise.all([
      tracker.track(51, retry),
      tracker.track(52, accept),
      tracker.track(49, accept),
    ]);
    expect(tracker.pending()).toEqual([51]);
    expect(await store.getWatermark(key)).toBe("50");
  });

  it("writes the watermark again after a failed write", async () => {
    const real = new SqliteStateStore({ path: ":memory:" });
    let failNext = true;
    const store: MessageStateStore = Object.create(real, {
      setWatermark: {
        value: async (k: typeof key, v: string) => {
          if (failNext) {
            failNext = false;
            throw new Error("disk full");
          }
          return real.setWatermark(k, v);
        },
      },
    });
    const tracker = createWatermarkTracker({ store, key });
    tracker.begin(1);
    tracker.begin(2);
    await expect(tracker.complete(1)).rejects.toThrow("disk full");
    await tracker.complete(2);
    expect(await real.getWatermark(key)).toBe("2");
  });
});

describe("C07 · Telegram polling watermark (SIGKILL)", () => {
  const child = fileURLToPath(new URL("./testing/pollingChild.ts", import.meta.url));
  let dir = "";
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("lets update 100 be fetched again after a crash; 100 is processed once and 101 not twice", async () => {
    dir = mkdtempSync(join(tmpdir(), "herald-c07-"));
    const db = join(dir, "state.db");
    const updates = join(dir, "updates.json");
    const log = join(dir, "processed.log");
    writeFileSync(log, "");
    // getUpdates returns 100 (slow, chat A) and 101 (fast, chat B).
    writeFileSync(
      updates,
      JSON.stringify([teleUpdate(100, { chatId: 1 }), teleUpdate(101, { chatId: 2 })]),
    );
    const seed = new SqliteStateStore({ path: db });
    await seed.setWatermark(key, "99");
    await seed.close();

    const run = (failpoints: string, slow: string) =>
      spawnSync(process.execPath, [child, db, updates, log, slow], {
        env: { ...process.env, HERALD_FAILPOINTS: failpoints },
        encoding: "utf8",
        timeout: 20_000,
      });

    // Killed once 101 completed and reached the watermark tracker, while 100 is still running.
    const crashed = run("receive.after_watermark=kill@1", "100");
    expect(crashed.signal).toBe("SIGKILL");
    expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toEqual(["101"]);
    const between = new SqliteStateStore({ path: db });
    expect(await between.getWatermark(key)).toBe("99");
    await between.close();

    const restarted = run("", "");
    expect(restarted.stderr).toBe("");
    expect(restarted.status).toBe(0);
    const processed = readFileSync(log, "utf8").split("\n").filter(Boolean);
    expect(processed.filter((id) => id === "100")).toHaveLength(1);
    expect(processed.filter((id) => id === "101")).toHaveLength(1);
    const after = new SqliteStateStore({ path: db });
    expect(await after.getWatermark(key)).toBe("101");
    await after.close();
  });
});
