/**
 * plainjob (SQLite): `queue.add` per message, `concurrency` workers polling one job at a time
 * (`getAndMarkJobAsProcessing` in a `BEGIN IMMEDIATE` transaction); a job is marked done when
 * its processor resolves. plainjob sets `synchronous = NORMAL`; the bench sets it back to `FULL`
 * so its commits are as durable as herald's. `queue.add` is one insert, committed on its own.
 *
 * - `tuned`: `pollIntervall: 50` ms per worker (an option of `defineWorker`; default 1 s, which
 *   a worker sleeps whenever it found no job). Its README's other advice for throughput, worker
 *   processes per core, is not applied: every system here runs one process.
 * - `defaults`: `defineWorker(type, fn, { queue })`.
 *
 * Crash handling, plainjob's own: a job left `processing` is requeued by the maintenance run
 * once `timeout` has passed (default 30 min). plainjob counts that timeout from the job's
 * `next_run_at` — when it was enqueued — not from when a worker claimed it, so the timeout must
 * exceed the longest time a job waits in the queue plus its run, or jobs still running are
 * requeued and run twice (the bench's old 2 s made 809 duplicates in 1,000 without any kill; a
 * fixed 15 s still made 302 on a host where the backlog took longer). With `fastRecovery` it is
 * `recoveryTimeoutMs` (set by the parent from plainjob's measured rate: three times the backlog's
 * drain time, at least {@link CRASH_TIMEOUT_MS}), checked every 500 ms. At-least-once.
 *
 * plainjob talks to better-sqlite3 or bun:sqlite through its `Connection` interface; the bench
 * gives it Node's own `node:sqlite` through that interface (`nodeSqliteConnection`), so no
 * native module has to be built.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { type Connection, defineQueue, defineWorker, JobStatus, type Worker } from "plainjob";
import { deliverer, type Job, type QueueSystem, type SystemConfig } from "./system.ts";

/** plainjob's `Connection` over `node:sqlite` (what its `better()` does for better-sqlite3). */
export function nodeSqliteConnection(path: string): Connection & { commits(): number } {
  const db = new DatabaseSync(path);
  let commits = 0;
  const transaction = (fn: (...args: unknown[]) => unknown) => {
    const wrap =
      (begin: string) =>
      (...args: unknown[]) => {
        db.exec(begin);
        try {
          const out = fn(...args);
          db.exec("COMMIT");
          commits += 1;
          return out;
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      };
    return Object.assign(wrap("BEGIN"), {
      deferred: wrap("BEGIN DEFERRED"),
      immediate: wrap("BEGIN IMMEDIATE"),
      exclusive: wrap("BEGIN EXCLUSIVE"),
      default: wrap("BEGIN"),
    });
  };
  return {
    driver: "better-sqlite3",
    filename: path,
    pragma: (stmt: string) => db.exec(`PRAGMA ${stmt}`),
    exec: (sql: string) => db.exec(sql),
    prepare: (sql: string) => {
      const stmt = db.prepare(sql);
      return {
        run: (...params: unknown[]) => {
          const r = stmt.run(...(params as []));
          // A write outside an explicit transaction is committed on its own.
          if (!db.isTransaction) commits += 1;
          return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
        },
        get: (...params: unknown[]) => stmt.get(...(params as [])),
        all: (...params: unknown[]) => stmt.all(...(params as [])),
      };
    },
    transaction: transaction as unknown as Connection["transaction"],
    close: () => db.close(),
    commits: () => commits,
  };
}

/** The shortest `timeout` of plainjob's crash and control runs, ms. */
export const CRASH_TIMEOUT_MS = 15_000;

const silent = { error() {}, warn() {}, info() {}, debug() {} };

export async function openPlainjob(config: SystemConfig): Promise<QueueSystem> {
  const connection = nodeSqliteConnection(config.sqlitePath);
  const queue = defineQueue({
    connection,
    logger: silent,
    ...(config.fastRecovery
      ? { timeout: config.recoveryTimeoutMs ?? CRASH_TIMEOUT_MS, maintenanceInterval: 500 }
      : {}),
  });
  connection.pragma("synchronous = FULL");
  const deliver = deliverer(config.platformUrl);
  const workers: Worker[] = [];
  return {
    async enqueue(job) {
      queue.add("send", job);
    },
    async work() {
      for (let i = 0; i < config.concurrency; i++) {
        const worker = defineWorker(
          "send",
          async (job) => {
            await deliver(JSON.parse(job.data) as Job);
          },
          {
            queue,
            logger: silent,
            ...(config.tuning === "tuned" ? { pollIntervall: 50 } : {}),
          },
        );
        workers.push(worker);
        void worker.start();
      }
    },
    async completed() {
      return queue.countJobs({ type: "send", status: JobStatus.Done });
    },
    commits: () => connection.commits(),
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      queue.close();
    },
  };
}
