/**
 * pg-boss (PostgreSQL, `SKIP LOCKED` fetches): `boss.send` per message (one committed insert).
 *
 * - `tuned`, as its workers doc describes for throughput
 *   (https://github.com/timgit/pg-boss/blob/12.38.0/docs/api/workers.md, `work()` options and
 *   `JobPollingOptions` in its types): LISTEN/NOTIFY wake-ups (`useListenNotify` on the
 *   instance, `notify: true` on the queue), 4 local workers (`localConcurrency`) × batches of 4
 *   (`batchSize`: 16 jobs in flight, the others' concurrency), fetching again at once while
 *   batches come back full (`burstWhenBatchFull`), the shortest idle poll it allows
 *   (`pollingIntervalSeconds: 0.5`); a batch completes in one statement when its handler
 *   resolves.
 * - `defaults`: `work(queue, { localConcurrency: 16 })`: one job per fetch, 2 s idle poll, no
 *   NOTIFY.
 *
 * Crash handling (`fastRecovery`), pg-boss's own for a dead worker: `heartbeatSeconds: 10` on the
 * queue (its minimum; `work()` refreshes the heartbeat while a handler runs, the supervisor fails
 * and retries a job whose heartbeat went stale), supervised every second. Without it an active
 * job of a dead process comes back only after `expireInSeconds` (default 15 min). At-least-once:
 * a retried job calls the platform again.
 *
 * @module
 */

import pg from "pg";
import { PgBoss } from "pg-boss";
import { deliverer, type Job, type QueueSystem, type SystemConfig } from "./system.ts";

const QUEUE = "send";
/** Local workers when tuned; each fetches `concurrency / BATCH` jobs at a time. */
const BATCH = 4;

export async function openPgBoss(config: SystemConfig): Promise<QueueSystem> {
  const tuned = config.tuning === "tuned";
  const boss = new PgBoss({
    connectionString: config.pgUrl,
    schema: config.schema,
    max: config.concurrency + 4,
    ...(tuned ? { useListenNotify: true } : {}),
    ...(config.fastRecovery ? { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 } : {}),
  });
  boss.on("error", (error) => console.error(`pg-boss: ${String(error)}`));
  await boss.start();
  await boss.createQueue(QUEUE, {
    ...(tuned ? { notify: true } : {}),
    ...(config.fastRecovery ? { heartbeatSeconds: 10 } : {}),
  });
  const deliver = deliverer(config.platformUrl);
  const counter = new pg.Client({ connectionString: config.pgUrl });
  await counter.connect();
  return {
    async enqueue(job) {
      await boss.send(QUEUE, job);
    },
    async work() {
      const handler = async (jobs: Array<{ data: Job }>) => {
        await Promise.all(jobs.map((job) => deliver(job.data)));
      };
      if (tuned) {
        await boss.work<Job>(
          QUEUE,
          {
            localConcurrency: BATCH,
            batchSize: Math.max(1, Math.round(config.concurrency / BATCH)),
            burstWhenBatchFull: true,
            pollingIntervalSeconds: 0.5,
          },
          handler,
        );
      } else {
        await boss.work<Job>(QUEUE, { localConcurrency: config.concurrency }, handler);
      }
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
