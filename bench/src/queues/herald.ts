/**
 * herald as a durable queue: `runtime.enqueue` writes the intent (the message's id as its
 * idempotency key), the delivery worker leases it, calls the fake platform through the fake
 * adapter and records the receipt. After a crash, startup recovery looks in-doubt sends up by key
 * (`reconcile`) before sending again.
 *
 * @module
 */
import { createMessageRuntime, type MessageStateStore, SqliteStateStore } from "@herald/core";
import { createFakeAdapter, httpTransport, outboundMessage } from "@herald/core/testing";
import { PostgresStateStore } from "@herald/store-postgres";
import type { QueueSystem, SystemConfig } from "./system.ts";

export async function openHerald(config: SystemConfig): Promise<QueueSystem> {
  const sqlite =
    config.system === "herald-sqlite"
      ? new SqliteStateStore({ path: config.sqlitePath, synchronous: "FULL" })
      : undefined;
  const store: MessageStateStore =
    sqlite ??
    (await PostgresStateStore.connect({
      connectionString: config.pgUrl,
      schema: config.schema,
      pool: { max: config.concurrency + 4 },
    }));
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        transport: httpTransport(config.platformUrl, { keepAlive: true }),
        reconcile: true,
        requestTimeoutMs: 200,
      }),
    ],
    delivery: { workerId: "bench", concurrency: config.concurrency, pollIntervalMs: 5 },
  });
  return {
    async enqueue(job) {
      await runtime.enqueue(outboundMessage(job.text, { target: { id: job.chat } }), {
        idempotencyKey: job.id,
      });
    },
    async work() {
      await runtime.start();
    },
    async completed() {
      return (await store.countIntents()).sent ?? 0;
    },
    ...(sqlite ? { commits: () => sqlite.groupCommitStats.groups } : {}),
    async close() {
      await runtime.stop(1_000);
      await store.close();
    },
  };
}
