/** The polling watermark tracker, and CASES C07 (Telegram polling watermark) with a real SIGKILL. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { HeraldLogger } from "../logger.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { scaledMs } from "../testing/timeScale.ts";
import { teleUpdate } from "./testing/fakeTelegram.ts";
import type { ReceiveAckSignal } from "./types.ts";
import { createWatermarkTracker } from "./watermark.ts";

const key = { channel: "telegram", accountId: "main" };

/** A logger keeping `{ level, msg, ...fields }` of every line. */
function capture(lines: Record<string, unknown>[]): HeraldLogger {
  const at = (level: string) => (obj: object, msg?: string) => lines.push({ level, msg, ...obj });
  const logger: HeraldLogger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => logger,
  };
  return logger;
}

describe("watermark tracker", () => {
  it("never persists an offset past an unfinished update", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const tracker = createWatermarkTracker({ store, key });
    expect(await tracker.load()).toBeUndefined();
    for (const id of [100, 101, 102]) tracker.begin(id);
    await tracker.complete(101);
    await tracker.complete(102);
    expect(await store.getWatermark(key)).toBe("99"); // lowest unfinished − 1
    expect(tracker.safeId()).toBe(99n);
    expect(tracker.pending()).toEqual([100n]);
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
    expect(tracker.safeId()).toBe(11n);
  });

  it("keeps an update whose ack is `retry` unfinished", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    await store.setWatermark(key, "50");
    const tracker = createWatermarkTracker({ store, key });
    expect(await tracker.load()).toBe(50n);
    const retry: Promise<ReceiveAckSignal> = Promise.resolve({ kind: "retry", reason: "failed" });
    const accept: Promise<ReceiveAckSignal> = Promise.resolve({ kind: "accept" });
    tracker.begin(51);
    tracker.begin(52);
    await Promise.all([tracker.track(51, retry), tracker.track(52, accept)]);
    expect(tracker.pending()).toEqual([51n]);
    expect(await store.getWatermark(key)).toBe("50");
  });

  it("compares Discord snowflakes (beyond 2^53) exactly, as bigint", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const tracker = createWatermarkTracker({ store, key });
    await tracker.load();
    // 2^53 + 1 and + 2 are the same JavaScript number: as numbers they would collide.
    const a = "9007199254740993";
    const b = "9007199254740994";
    tracker.begin(a);
    tracker.begin(b);
    await tracker.complete(b);
    expect(await store.getWatermark(key)).toBe("9007199254740992"); // a − 1: a is unfinished
    await tracker.complete(a);
    expect(await store.getWatermark(key)).toBe(b);
    expect(tracker.safeId()).toBe(9007199254740994n);
    expect(() => tracker.begin(1.5)).toThrow(/integers/);
  });

  it("logs a stored watermark that is not an integer instead of ignoring it silently", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    await store.setWatermark(key, "s72_1234_5"); // e.g. a Matrix token stored under this key
    const lines: { level: string; msg?: string; stored?: string }[] = [];
    const tracker = createWatermarkTracker({ store, key, logger: capture(lines) });
    expect(await tracker.load()).toBeUndefined();
    expect(lines).toContainEqual(expect.objectContaining({ level: "error", stored: "s72_1234_5" }));
  });

  it("follows a restart of the platform's id sequence below the watermark, logged and counted", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    await store.setWatermark(key, "1000");
    const lines: { level: string; msg?: string }[] = [];
    const restarts: bigint[] = [];
    const tracker = createWatermarkTracker({
      store,
      key,
      logger: capture(lines),
      onRestart: (r) => restarts.push(r.id),
    });
    await tracker.load();
    tracker.begin(1001); // in flight when the sequence restarts
    expect(tracker.resumeAfter()).toBe(1000n);
    // Telegram after a week idle: the next update_id is chosen at random, lower.
    tracker.begin(37);
    tracker.begin(38);
    expect(restarts).toEqual([37n]);
    expect(lines.some((l) => l.level === "warn" && /restarted/.test(l.msg ?? ""))).toBe(true);
    await tracker.complete(38);
    expect(await store.getWatermark(key)).toBe("36"); // 37 unfinished
    await tracker.complete(1001); // of the old sequence: moves nothing
    expect(await store.getWatermark(key)).toBe("36");
    await tracker.complete(37);
    expect(await store.getWatermark(key)).toBe("38");
    expect(tracker.resumeAfter()).toBe(38n); // the next fetch asks for 39
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
        timeout: scaledMs(20_000),
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
