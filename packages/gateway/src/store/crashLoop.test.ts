/**
 * A gateway's SQLite worker store that crashes in a loop gives up (`StoreFailedError`): the
 * gateway logs one line saying why, and `/readyz` answers 503 with the store's code
 * `HERALD_STORE_FAILED` instead of the store restarting its worker forever.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteWorkerStore, StoreFailedError } from "@herald/core";
import { scaledMs } from "@herald/core/testing";
import { captureLogger } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseConfig } from "../config/load.ts";
import { GatewayMetrics } from "../http/metrics.ts";
import { startHttpServer } from "../http/server.ts";
import { openStore } from "./openStore.ts";

describe("a gateway's SQLite worker store in a crash loop", () => {
  it("gives up: one log line, /readyz 503 with HERALD_STORE_FAILED", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-crash-loop-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const lines: string[] = [];
    const logger = captureLogger(lines);
    const config = parseConfig({ store: { sqlite: { path: "state.db" } } });
    // The worker dies on its 2nd message; every replacement fails to open the database.
    process.env.HERALD_FAILPOINTS = "store.worker_message=throw@2";
    const store = await openStore(config, dir, {}, { logger, crashLoop: { maxCrashes: 3 } });
    delete process.env.HERALD_FAILPOINTS;
    onTestFinished(() => store.close().catch(() => {}));
    expect(store).toBeInstanceOf(SqliteWorkerStore);
    await store.countIntents();
    const path = join(dir, "state.db");
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
    mkdirSync(path);
    await store.countIntents().catch(() => {});
    await expect
      .poll(() => (store as SqliteWorkerStore).failure, { timeout: scaledMs(10_000) })
      .toBeInstanceOf(StoreFailedError);

    const server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      store,
      metrics: new GatewayMetrics(store, logger),
      receivers: new Map(),
      logger,
    });
    onTestFinished(() => server.close());
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { store: { up: boolean; code: string } };
    expect(body.store).toMatchObject({ up: false, code: "HERALD_STORE_FAILED" });
    const gaveUp = lines.filter((l) => l.includes("no longer restarting"));
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]).toContain("HERALD_STORE_FAILED");
  });
});
