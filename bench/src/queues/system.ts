/**
 * What every durable queue of the comparison implements, so the bench drives herald and its
 * peers the same way: enqueue one message per call (32 calls in flight; what a call commits is
 * each system's own: herald's concurrent enqueues share group commits, every peer commits each
 * call on its own), run workers that claim a message, call the fake platform and complete it,
 * and count what is complete.
 *
 * @module
 */
import { httpTransport } from "@herald/core/testing";

/** One message to deliver: `id` is its payload id and idempotency key, `text` names it too. */
export type Job = { id: string; chat: string; text: string };

/** The systems compared. */
export type SystemName =
  | "herald-sqlite"
  | "herald-postgres"
  | "pg-boss"
  | "graphile-worker"
  | "plainjob";

/** How a child process opens its system (JSON in argv). */
export type SystemConfig = {
  system: SystemName;
  /** SQLite file for the SQLite systems. */
  sqlitePath: string;
  pgUrl: string;
  /** PostgreSQL schema of this run (dropped by the parent afterwards). */
  schema: string;
  /** The fake platform's `/call` URL. */
  platformUrl: string;
  /** Messages delivered at once by the workers. */
  concurrency: number;
  /**
   * `tuned`: the throughput options each system's own docs recommend (cited in each opener and
   * in docs/concepts/performance.md); `defaults`: the library's defaults, only the concurrency
   * set (the same for every system).
   */
  tuning: Tuning;
  /**
   * Crash and control runs: each peer's documented way of getting a dead worker's jobs back
   * (pg-boss `heartbeatSeconds`, plainjob `timeout`, graphile-worker `force_unlock_workers`),
   * set so that a restart recovers inside the run.
   */
  fastRecovery: boolean;
  /**
   * plainjob's `timeout` in crash and control runs, ms: longer than the crash run's whole backlog
   * takes on this host (set from its measured rate), since plainjob counts it from enqueue time.
   */
  recoveryTimeoutMs?: number;
};

/** Which options a system runs with (see {@link SystemConfig.tuning}). */
export type Tuning = "tuned" | "defaults";

/** A queue under test, opened in one process. */
export interface QueueSystem {
  /** Durably enqueues one message (resolves once committed). */
  enqueue(job: Job): Promise<void>;
  /** Starts the workers (claim → {@link deliver} → complete). */
  work(): Promise<void>;
  /** Messages completed so far. */
  completed(): Promise<number>;
  /**
   * SQLite systems: transactions committed so far by this process (herald: its group commits,
   * lease transactions included; plainjob: its explicit transactions plus each write statement
   * run outside one, which SQLite commits on its own). PostgreSQL systems: undefined (the parent
   * reads `pg_stat_database.xact_commit` of the bench's own database instead).
   */
  commits?(): number;
  close(): Promise<void>;
}

/**
 * The call every peer's handler makes: one send to the fake platform over HTTP (kept-alive
 * connections), the same client
 * herald's fake adapter uses. The key is passed along; the platform stores it but does not
 * deduplicate (like Telegram), so a repeated call shows as a duplicate.
 */
export function deliverer(platformUrl: string): (job: Job) => Promise<void> {
  const call = httpTransport(platformUrl, { keepAlive: true });
  return async (job) => {
    await call({ op: "send", chat: job.chat, text: job.text, key: job.id });
  };
}
