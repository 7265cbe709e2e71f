/**
 * graphile-worker (PostgreSQL, LISTEN/NOTIFY + `SKIP LOCKED`): `addJob` per message (one
 * committed insert), a worker pool of `concurrency`; a completed job is deleted.
 *
 * - `tuned`: the batching its performance page recommends and benchmarks with
 *   (https://worker.graphile.org/docs/performance#batching): `localQueue: { size: 500 }` (the
 *   pool locks and fetches jobs in batches, served to its workers locally),
 *   `completeJobBatchDelay: 0` and `failJobBatchDelay: 0` (completions batched into one
 *   statement), prepared statements (`preparedStatements`, on by default), `pollInterval` 500 ms
 *   (it only matters for future jobs: new ones arrive by NOTIFY).
 * - `defaults`: `run({ concurrency })` and nothing else: a fetch per job, a completion per job.
 * A job locked by a process that died stays
 * locked for 4 hours; with `fastRecovery` the restarted process first calls
 * `force_unlock_workers` for the dead workers' ids (graphile's documented recovery for a worker
 * known to be dead), so those jobs run again at once. At-least-once.
 *
 * @module
 */
import { Logger, makeWorkerUtils, type Runner, run } from "graphile-worker";

const quiet = new Logger((scope) => (level, message) => {
  if (level === "error") console.error(`graphile-worker ${JSON.stringify(scope)}: ${message}`);
});

import { deliverer, type Job, type QueueSystem, type SystemConfig } from "./system.ts";

export async function openGraphileWorker(config: SystemConfig): Promise<QueueSystem> {
  const utils = await makeWorkerUtils({
    connectionString: config.pgUrl,
    schema: config.schema,
    logger: quiet,
  });
  await utils.migrate();
  const deliver = deliverer(config.platformUrl);
  let runner: Runner | undefined;
  const q = (sql: string) => utils.withPgClient((client) => client.query(sql));
  const countJobs = async () =>
    Number((await q(`SELECT count(*)::int AS n FROM "${config.schema}"._private_jobs`)).rows[0].n);
  let enqueued = 0;
  return {
    async enqueue(job) {
      await utils.addJob("send", job);
      enqueued += 1;
    },
    async work() {
      if (config.fastRecovery) {
        const locked = await q(
          `SELECT DISTINCT locked_by FROM "${config.schema}"._private_jobs WHERE locked_by IS NOT NULL`,
        );
        const ids = locked.rows.map((r) => String(r.locked_by));
        if (ids.length > 0) await utils.forceUnlockWorkers(ids);
      }
      runner = await run({
        connectionString: config.pgUrl,
        schema: config.schema,
        concurrency: config.concurrency,
        maxPoolSize: config.concurrency + 4,
        noHandleSignals: true,
        ...(config.tuning === "tuned"
          ? {
              pollInterval: 500,
              preset: {
                worker: {
                  localQueue: { size: 500 },
                  completeJobBatchDelay: 0,
                  failJobBatchDelay: 0,
                  preparedStatements: true,
                },
              },
            }
          : {}),
        logger: quiet,
        crontab: "",
        taskList: {
          send: async (payload) => {
            await deliver(payload as Job);
          },
        },
      });
    },
    async completed() {
      return enqueued - (await countJobs());
    },
    async close() {
      await runner?.stop();
      await utils.release();
    },
  };
}
