/**
 * What every durable queue of the comparison implements, so the bench drives herald and its
 * peers the same way: enqueue one message (its own durable transaction), run workers that claim
 * a message, call the fake platform and complete it, and count what is complete.
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
   * Crash runs: the peers' recovery knobs are turned down from their defaults (15 min, 30 min,
   * 4 h) to seconds, so a restart recovers what the killed process held inside the run.
   */
  fastRecovery: boolean;
};

/** A queue under test, opened in one process. */
export interface QueueSystem {
  /** Durably enqueues one message (resolves once committed). */
  enqueue(job: Job): Promise<void>;
  /** Starts the workers (claim → {@link deliver} → complete). */
  work(): Promise<void>;
  /** Messages completed so far. */
  completed(): Promise<number>;
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
