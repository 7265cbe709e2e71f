/**
 * plainjob (SQLite): `queue.add` per message, `concurrency` workers polling one job at a time
 * (`getAndMarkJobAsProcessing` in a `BEGIN IMMEDIATE` transaction); a job is marked done when
 * its processor resolves. plainjob sets `synchronous = NORMAL`; the bench sets it back to `FULL`
 * so its commits are as durable as herald's. A job left `processing` by a dead process is
 * requeued after `timeout` (default 30 min; 2 s with `fastRecovery`, checked every 500 ms).
 * At-least-once.
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
export function nodeSqliteConnection(path: string): Connection {
  const db = new DatabaseSync(path);
  const transaction = (fn: (...args: unknown[]) => unknown) => {
    const wrap =
      (begin: string) =>
      (...args: unknown[]) => {
        db.exec(begin);
        try {
          const out = fn(...args);
          db.exec("COMMIT");
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
          return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
        },
        get: (...params: unknown[]) => stmt.get(...(params as [])),
        all: (...params: unknown[]) => stmt.all(...(params as [])),
      };
    },
    transaction: transaction as unknown as Connection["transaction"],
    close: () => db.close(),
  };
}

const silent = { error() {}, warn() {}, info() {}, debug() {} };

export async function openPlainjob(config: SystemConfig): Promise<QueueSystem> {
  const connection = nodeSqliteConnection(config.sqlitePath);
  const queue = defineQueue({
    connection,
    logger: silent,
    ...(config.fastRecovery ? { timeout: 2_000, maintenanceInterval: 500 } : {}),
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
          { queue, logger: silent, pollIntervall: 50 },
        );
        workers.push(worker);
        void worker.start();
      }
    },
    async completed() {
      return queue.countJobs({ type: "send", status: JobStatus.Done });
    },
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      queue.close();
    },
  };
}
