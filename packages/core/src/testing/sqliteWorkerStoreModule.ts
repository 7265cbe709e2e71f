/**
 * `openStore(location)` for the worker-thread SQLite store ({@link openSqliteStateStore}), used
 * by crash-test child processes.
 *
 * @module
 */
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { openSqliteStateStore } from "../state/sqlite/worker/SqliteWorkerStore.ts";

/** Opens the SQLite store at `location` in a worker thread, with durable commits. */
export async function openStore(location: string): Promise<MessageStateStore> {
  return openSqliteStateStore({ path: location });
}
