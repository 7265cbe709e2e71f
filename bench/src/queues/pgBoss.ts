/**
 * pg-boss (PostgreSQL, `SKIP LOCKED` fetches): `boss.send` per message; `boss.work` tuned for
 * throughput as its docs describe — LISTEN/NOTIFY wake-ups, batches of 4 fetched by 4 local
 * workers (16 jobs in flight, the others' concurrency), fetching again at once while batches come
 * back full (`burstWhenBatchFull`); a batch completes when its handler resolves. An
 * active job whose process died is retried after `expireInSeconds` (default 15 min; 2 s with
 * `fastRecovery`, supervised every second). At-least-once: a retried job calls the platform
 * again.
 *
 * @module
 */

import pg from "pg";
import { PgBoss } from "pg-boss";
import { deliverer, type Job, type QueueSystem, type SystemConfig } from "./system.ts";

const QUEUE = "send";
/** Local workers; each fetches `concurrency / BATCH` jobs at a time. */
const BATCH = 4;

export async function openPgBoss(config: SystemConfig): Promise<QueueSystem> {
  const boss = new PgBoss({
    connectionString: config.pgUrl,
    schema: config.schema,
    max: config.concurrency + 4,
    useListenNotify: true,
    ...(config.fastRecovery ? { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 } : {}),
  });
  boss.on("error", (error) => console.error(`pg-boss: ${String(error)}`));
  await boss.start();
  await boss.createQueue(QUEUE, {
    notify: true,
    ...(config.fastRecovery ? { expireInSeconds: 2 } : {}),
  });
  const deliver = deliverer(config.platformUrl);
  const counter = new pg.Client({ connectionString: config.pgUrl });
  await counter.connect();
  return {
    async enqueue(job) {
      await boss.send(QUEUE, job);
    },
    async work() {
      await boss.work<Job>(
        QUEUE,
        {
          localConcurrency: BATCH,
          batchSize: Math.max(1, Math.round(config.concurrency / BATCH)),
          burstWhenBatchFull: true,
          pollingIntervalSeconds: 0.5,
        },
        async (jobs) => {
          await Promise.all(jobs.map((job) => deliver(job.data)));
        },
      );
    },
    async completed() {
      const r = await counter.query(
        `SELECT count(*)::int AS n FROM "${config.schema}".job WHERE name = $1 AND state = 'completed'`,
        [QUEUE],
      );
      return r.rows[0].n as number;
    },
    async close() {
      await counter.end();
      await boss.stop({ graceful: true, timeout: 2_000 });
    },
  };
}
