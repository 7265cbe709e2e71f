/**
 * `openStore(location)` for {@link SqliteStateStore}, used by crash-test child processes.
 *
 * @module
 */
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";

/** Opens the SQLite store at `location` with durable commits. */
export async function openStore(location: string): Promise<MessageStateStore> {
  return new SqliteStateStore({ path: location });
}
