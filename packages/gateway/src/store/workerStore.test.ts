/**
 * [H20] item 6 / [H19] item 2: a gateway's SQLite file is opened in a worker thread, so another
 * process holding SQLite's write lock does not stall the gateway: `/livez` keeps answering
 * while writes (and `/readyz`'s probe write) wait for the lock, and they all go through once it
 * is released. The lock is released by the test after the probes (an ordering, not a latency
 * bound, so it holds on a busy machine; the stall this guards against was 14.8 s).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteWorkerStore } from "@herald/core";
import { newIntent, trackChild } from "@herald/core/testing";
import { captureLogger } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseConfig } from "../config/load.ts";
import { GatewayMetrics } from "../http/metrics.ts";
import { startHttpServer } from "../http/server.ts";
import { openStore } from "./openStore.ts";

describe("a gateway's SQLite store runs in a worker thread", () => {
  it("answers /livez while another process holds the write lock, and the writes go through after", async () => {
    const dir = mkdtempSync(join(tmpdir(), "herald-worker-store-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const config = parseConfig({ store: { sqlite: { path: "state.db" } } });
    const store = await openStore(config, dir, {}, { lock: true });
    onTestFinished(() => store.close().catch(() => {}));
    expect(store).toBeInstanceOf(SqliteWorkerStore);
    await store.enqueueIntents([newIntent()]);

    const lines: string[] = [];
    const logger = captureLogger(lines);
    const server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      store,
      metrics: new GatewayMetrics(store, logger),
      receivers: new Map(),
      logger,
    });
    onTestFinished(() => server.close());
    // Warm up the HTTP client (its first request loads and connects).
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);

    // Another process takes the write lock and holds it until the test writes a line to it.
    const holder = trackChild(
      spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { DatabaseSync } from "node:sqlite";
         const db = new DatabaseSync(${JSON.stringify(join(dir, "state.db"))});
         db.exec("BEGIN IMMEDIATE");
         process.stdout.write("locked\\n");
         process.stdin.once("data", () => { db.exec("COMMIT"); db.close(); process.exit(0); });`,
        ],
        { stdio: ["pipe", "pipe", "inherit"] },
      ),
    );
    onTestFinished(() => {
      holder.kill("SIGKILL");
    });
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on("data", (d) => String(d).includes("locked") && resolve());
      holder.once("exit", (code) => reject(new Error(`holder exited ${code}`)));
    });
    const exited = new Promise((resolve) => holder.once("exit", resolve));

    // Writes wait for the lock (the store's busy timeout is 5 s) …
    const writes = Promise.all(
      Array.from({ length: 20 }, () => store.enqueueIntents([newIntent()])),
    );
    const ready = fetch(`${server.url}/readyz`);
    let written = false;
    void writes.then(() => {
      written = true;
    });
    // … while liveness answers, five times in a row: the lock is still held (the test has not
    // released it), so a /livez that waited for the store would never answer.
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.url}/livez`);
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    expect(written).toBe(false);
    holder.stdin.end("release\n");
    await exited;
    await writes;
    expect((await ready).status).toBe(200);
    expect((await store.countIntents()).pending).toBe(21);
  });
});
