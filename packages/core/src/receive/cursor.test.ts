/** The opaque cursor tracker (batch semantics), and CASES C31a (sync checkpoint) with a real SIGKILL. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { HeraldLogger } from "../logger.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { scaledMs } from "../testing/timeScale.ts";
import { createCursorTracker } from "./cursor.ts";
import type { ReceiveAckSignal } from "./types.ts";

const key = { channel: "matrix", accountId: "main", source: "sync" };
const accept: Promise<ReceiveAckSignal> = Promise.resolve({ kind: "accept" });
const retry: Promise<ReceiveAckSignal> = Promise.resolve({ kind: "retry", reason: "failed" });

describe("cursor tracker", () => {
  it("persists a batch's next only when it and every earlier batch are done", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const cursor = createCursorTracker({ store, key });
    expect(await cursor.load()).toBeUndefined();
    const b1 = cursor.batch("s2");
    const a = b1.item();
    const b = b1.item();
    await b1.seal();
    const b2 = cursor.batch("s3");
    const c = b2.item();
    await b2.seal();
    await c.complete(); // the later batch finishes first
    await a.complete();
    expect(await store.getWatermark(key)).toBeUndefined(); // b is unfinished: s2 not safe
    expect(cursor.pending()).toEqual([
      { next: "s2", unfinished: 1 },
      { next: "s3", unfinished: 0 },
    ]);
    await b.complete();
    expect(await store.getWatermark(key)).toBe("s3"); // both done: the newest next
    expect(cursor.safe()).toBe("s3");
    expect(cursor.pending()).toEqual([]);
  });

  it("a store that refuses the write (closed under a stopping receiver) leaves the stored cursor behind and rejects into nobody", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const warnings: string[] = [];
    const logger = {
      child: () => logger,
      debug: () => {},
      info: () => {},
      warn: (_o: unknown, msg: string) => warnings.push(msg),
      error: () => {},
    } as unknown as HeraldLogger;
    const cursor = createCursorTracker({ store, key, logger });
    await cursor.load();
    const b1 = cursor.batch("s2");
    const a = b1.item();
    await b1.seal();
    await store.close();
    await expect(a.track(accept)).resolves.toBe(true);
    expect(warnings).toEqual([expect.stringContaining("cursor not advanced")]);
  });

  it("stops at the oldest unfinished batch", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const cursor = createCursorTracker({ store, key });
    await cursor.load();
    const b1 = cursor.batch("s2");
    const x = b1.item();
    await b1.seal();
    const b2 = cursor.batch("s3");
    const y = b2.item();
    await b2.seal();
    await x.complete();
    expect(await store.getWatermark(key)).toBe("s2");
    expect(cursor.pending()).toEqual([{ next: "s3", unfinished: 1 }]);
    await y.complete();
    expect(await store.getWatermark(key)).toBe("s3");
  });

  it("keeps an item whose ack is `retry` unfinished until a redelivery is accepted", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    await store.setWatermark(key, "s1");
    const cursor = createCursorTracker({ store, key });
    expect(await cursor.load()).toBe("s1");
    const batch = cursor.batch("s2");
    const item = batch.item();
    await batch.seal();
    expect(await item.track(retry)).toBe(false);
    expect(await store.getWatermark(key)).toBe("s1");
    expect(await item.track(accept)).toBe(true);
    expect(await store.getWatermark(key)).toBe("s2");
  });

  it("an empty batch (no events) advances at once; a sealed batch takes no items", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const cursor = createCursorTracker({ store, key });
    await cursor.load();
    const batch = cursor.batch("s9");
    await batch.seal();
    expect(await store.getWatermark(key)).toBe("s9");
    expect(() => batch.item()).toThrow(/sealed/);
    expect(() => cursor.batch("")).toThrow(/non-empty/);
  });

  it("logs a stored empty cursor instead of ignoring it silently", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    await store.setWatermark(key, "");
    const lines: { level: string; msg?: string | undefined }[] = [];
    const at = (level: string) => (_obj: object, msg?: string) => lines.push({ level, msg });
    const logger: HeraldLogger = {
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      child: () => logger,
    };
    expect(await createCursorTracker({ store, key, logger }).load()).toBeUndefined();
    expect(lines).toContainEqual({ level: "error", msg: "stored cursor is empty: ignoring it" });
  });
});

describe("C31a · sync checkpoint (SIGKILL)", () => {
  const child = fileURLToPath(new URL("./testing/cursorChild.ts", import.meta.url));
  let dir = "";
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const policy of ["after-durable-send", "after-record"] as const) {
    it(`processes e1 exactly once when killed inside its handler (${policy})`, async () => {
      dir = mkdtempSync(join(tmpdir(), "herald-c31-"));
      const db = join(dir, "state.db");
      const log = join(dir, "processed.log");
      writeFileSync(log, "");
      const run = (mode: string) =>
        spawnSync(process.execPath, [child, db, log, mode, policy], {
          encoding: "utf8",
          timeout: scaledMs(20_000),
        });
      const crashed = run("kill");
      expect(crashed.signal).toBe("SIGKILL");
      expect(readFileSync(log, "utf8")).toBe("");
      const between = new SqliteStateStore({ path: db });
      // s2 is saved only once e1 is done (after-durable-send) or durably recorded (after-record:
      // then the restart's inbox recovery runs it, and s2 may or may not have been written).
      const saved = await between.getWatermark({ ...key, channel: "telegram" });
      if (policy === "after-durable-send") expect(saved).toBeUndefined();
      else expect([undefined, "s2"]).toContain(saved);
      await between.close();
      const restarted = run("ok");
      expect(restarted.stderr).toBe("");
      expect(restarted.status).toBe(0);
      const processed = readFileSync(log, "utf8").split("\n").filter(Boolean);
      expect(processed.sort()).toEqual(["1", "2"]);
    });
  }
});
