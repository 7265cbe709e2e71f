/**
 * The fake homeserver's transaction-id table, switchable to the retention of each real server
 * (CASES C39, PLATFORMS.md §9). The spec promises that a retried `PUT …/{txnId}` from the same
 * device is idempotent but states no retention; the servers differ:
 * - `synapse`: the send path's `(room, user, device, txnId) → event_id` rows live in the database
 *   table `event_txn_id_device_id` and are deleted when older than 24 h by a job every 5 min
 *   (`synapse/storage/databases/main/events_worker.py`, `_cleanup_old_transaction_ids`); they
 *   survive a restart (the in-memory `HttpTransactionCache`, 30–60 min, is only the first layer);
 * - `dendrite`: two in-memory maps keyed by access token and txnId, cycled every 30 min — an
 *   entry lives 30 to 60 min — and lost on restart (`internal/transactions/transactions.go`,
 *   `DefaultCleanupPeriod`, `cacheCleanService`);
 * - `conduit` (and conduwuit): the `userdevicetxnid_response` tree in its database, keyed by
 *   user, device and txnId, with no expiry (`src/database/key_value/transaction_ids.rs`).
 *
 * Errors are never stored (Synapse removes a failed request's entry; a 429 may be retried with
 * the same txnId).
 *
 * @module
 */

/** A server whose transaction-id retention the fake models. */
export type FakeServerKind = "synapse" | "dendrite" | "conduit";

/** How a kind keeps txnIds. */
export type TxnRetention = {
  /** Entries older than this are forgotten, in ms (`Infinity`: never). */
  ttlMs: number;
  /**
   * Dendrite: entries are dropped in cycles of this period counted from the server's start, so
   * one lives between one and two periods, in ms. @defaultValue none (the TTL alone)
   */
  cycleMs?: number;
  /** Kept across a restart of the homeserver (in a database, not in memory). */
  persistent: boolean;
};

/** Each kind's retention (sources in the module docs). */
export const TXN_RETENTION: Readonly<Record<FakeServerKind, TxnRetention>> = {
  synapse: { ttlMs: 86_400_000, persistent: true },
  dendrite: { ttlMs: Number.POSITIVE_INFINITY, cycleMs: 1_800_000, persistent: false },
  conduit: { ttlMs: Number.POSITIVE_INFINITY, persistent: true },
};

type Entry = { eventId: string; at: number };

/** A transaction-id table with one server kind's retention. */
export class FakeTransactions {
  /** The retention in force (switchable in a test). */
  retention: TxnRetention;
  readonly #entries = new Map<string, Entry>();
  readonly #clock: () => number;
  /** When the server (re)started: Dendrite's cycles count from here. */
  #startedAt: number;

  constructor(kind: FakeServerKind, clock: () => number) {
    this.retention = { ...TXN_RETENTION[kind] };
    this.#clock = clock;
    this.#startedAt = clock();
  }

  /** The event id stored under `key` when still remembered. */
  get(key: string): string | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#alive(entry)) return entry.eventId;
    this.#entries.delete(key);
    return undefined;
  }

  /** Stores `eventId` under `key`, now. */
  set(key: string, eventId: string): void {
    this.#entries.set(key, { eventId, at: this.#clock() });
  }

  /** Forgets every entry now. */
  clear(): void {
    this.#entries.clear();
  }

  /** The homeserver restarts: an in-memory table is lost; cycles start again. */
  restart(): void {
    if (!this.retention.persistent) this.#entries.clear();
    this.#startedAt = this.#clock();
  }

  #alive(entry: Entry): boolean {
    const now = this.#clock();
    if (now - entry.at >= this.retention.ttlMs) return false;
    const cycle = this.retention.cycleMs;
    if (cycle === undefined) return true;
    const tick = (t: number) => Math.floor((t - this.#startedAt) / cycle);
    // Stored in map 0; moved to map 1 at the next tick; dropped at the one after.
    return tick(now) - tick(entry.at) < 2;
  }
}
