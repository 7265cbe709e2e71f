/**
 * The embedded default state store on `node:sqlite` (DESIGN §3): WAL journal, durable commits
 * (`synchronous = FULL`) by default, forward migrations on open, and `BEGIN IMMEDIATE`
 * transactions so several processes may share one file safely. The table operations live in
 * `IntentTables.ts` (send intents, receipt registry) and `InboundTables.ts` (dedupe,
 * watermarks, ledger, dead letters); this class owns the connection and maps errors. Writes go
 * through group commit (`GroupCommit.ts`: one transaction per event-loop tick, a savepoint per
 * operation); reads run at once.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { HeraldError } from "../../errors.ts";
import type { DurableSendIntent, IntentStatus } from "../../message/intent.ts";
import type { MessageReceipt } from "../../message/receipt.ts";
import { sleep } from "../../sleep.ts";
import { SchemaTooNewError, StoreUnavailableError } from "../errors.ts";
import type { MessageStateStore } from "../MessageStateStore.ts";
import type {
  DeadLetter,
  DedupeAcquireResult,
  DedupeKey,
  DedupeRecord,
  EnqueueResult,
  IntentPatch,
  IntentQuery,
  IntentStatusRow,
  IntentTransition,
  LeaseRequest,
  LedgerEvent,
  NewDeadLetter,
  NewLedgerEvent,
  NewSendIntent,
  ReceiptRecord,
  RecoveryQuery,
  WatermarkKey,
} from "../types.ts";
import { GroupCommit, isBusy } from "./GroupCommit.ts";
import { InboundTables } from "./InboundTables.ts";
import { IntentTables } from "./IntentTables.ts";
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from "./migrations.ts";

/** Options of {@link SqliteStateStore}. */
export type SqliteStateStoreOptions = {
  /** Database file path, or `":memory:"` for a private in-memory database. */
  path: string;
  /**
   * SQLite `synchronous` setting. `FULL` makes every commit durable across power loss; `NORMAL`
   * (with WAL) may lose the last commits on power loss but never corrupts, and is faster.
   * @defaultValue "FULL"
   */
  synchronous?: "FULL" | "NORMAL" | "EXTRA";
  /**
   * How long an operation waits for another process's lock, in milliseconds, before it fails
   * with `StoreUnavailableError`. The wait happens off the event loop: SQLite itself waits only
   * `busySpinMs` per try, then the store retries after an async backoff (5 → 50 ms), so
   * `/healthz`, webhooks and timers keep running while another process holds the write lock.
   * Opening (and migrating) waits synchronously, once. @defaultValue 5000
   */
  busyTimeoutMs?: number;
  /** SQLite's own (synchronous) busy wait per try, in milliseconds. @defaultValue 5 */
  busySpinMs?: number;
  /** Clock for `createdAt` / `updatedAt`, epoch ms. @defaultValue Date.now */
  clock?: () => number;
  /**
   * Group commit: the write operations called in one event-loop tick share one transaction
   * (one fsync), each in its own savepoint (module doc of `GroupCommit.ts`). A write's promise
   * settles only after its transaction committed, so durability is unchanged. These bound one
   * group so a burst cannot hold the event loop for long. `false`: every write is its own
   * transaction, run at once (one fsync each; for comparison in `pnpm bench`).
   * @defaultValue `{}` (on)
   */
  groupCommit?:
    | false
    | {
        /** Most operations in one transaction. @defaultValue 256 */
        maxMembers?: number;
        /**
         * Work time after which a transaction takes no more operations, in ms.
         * @defaultValue twice the recent `COMMIT` time, between 2 and 4 (follows the disk)
         */
        maxGroupMs?: number;
      };
  /** Stop migrating at this version (tests of the migration path only). */
  migrateTo?: number;
};

/**
 * {@link MessageStateStore} on SQLite.
 *
 * @example
 * const store = new SqliteStateStore({ path: ".herald/state.db" });
 * const [{ intent }] = await store.enqueueIntents([{ idempotencyKey: "reply:42", message }]);
 */
export class SqliteStateStore implements MessageStateStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #clock: () => number;
  readonly #statements = new Map<string, StatementSync>();
  #closed = false;
  readonly #busyTimeoutMs: number;
  readonly #group: GroupCommit;
  readonly #grouped: boolean;
  readonly #intents = new IntentTables({
    stmt: (sql) => this.#stmt(sql),
    tx: (fn) => this.#tx(fn),
    clock: () => this.#clock(),
    prepare: (sql) => this.#db.prepare(sql),
  });
  readonly #inbound = new InboundTables({
    stmt: (sql) => this.#stmt(sql),
    tx: (fn) => this.#tx(fn),
    clock: () => this.#clock(),
    prepare: (sql) => this.#db.prepare(sql),
  });

  /**
   * Opens (and creates or migrates) the database.
   *
   * @throws {@link SchemaTooNewError} when the file was written by a newer herald.
   * @throws {@link StoreUnavailableError} when the file cannot be opened.
   */
  constructor(options: SqliteStateStoreOptions) {
    this.path = options.path;
    this.#clock = options.clock ?? Date.now;
    try {
      this.#db = new DatabaseSync(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
      if (options.path !== ":memory:") this.#db.exec("PRAGMA journal_mode = WAL");
      this.#db.exec(`PRAGMA synchronous = ${options.synchronous ?? "FULL"}`);
      this.#db.exec("PRAGMA foreign_keys = ON");
      // Every group-commit member runs in a SAVEPOINT, and SQLite keeps the pages a savepoint
      // may have to restore in a statement journal that spills to a temporary file past 64 KiB:
      // a group of 30 sends wrote ~35 KiB per message there, beside ~16 KiB of WAL. Kept in
      // memory (at most one group's pages) instead ([H19] bench; `statementJournal.test.ts`).
      this.#db.exec("PRAGMA temp_store = MEMORY");
    } catch (error) {
      throw new StoreUnavailableError(`open ${options.path}`, error);
    }
    this.#migrate(options.migrateTo ?? SQLITE_SCHEMA_VERSION);
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    const group = options.groupCommit;
    this.#grouped = group !== false;
    this.#group = new GroupCommit(this.#db, {
      busyTimeoutMs: this.#busyTimeoutMs,
      closed: () => this.#closed,
      ...(group && group.maxMembers !== undefined ? { maxMembers: group.maxMembers } : {}),
      ...(group && group.maxGroupMs !== undefined ? { maxGroupMs: group.maxGroupMs } : {}),
    });
    // From now on the event loop is held at most this long per try; #run retries async.
    this.#db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busySpinMs ?? 5))}`);
  }

  #migrate(target: number): void {
    const current = this.#version();
    if (current > SQLITE_SCHEMA_VERSION)
      throw new SchemaTooNewError(current, SQLITE_SCHEMA_VERSION);
    for (const m of SQLITE_MIGRATIONS) {
      if (m.version <= this.#version() || m.version > target) continue;
      this.#tx(() => {
        // Re-check inside the write lock: another process may have migrated meanwhile.
        if (this.#version() >= m.version) return;
        this.#db.exec(m.sql);
        this.#db.exec(`PRAGMA user_version = ${m.version}`);
      });
    }
  }

  #version(): number {
    const row = this.#db.prepare("PRAGMA user_version").get() as { user_version: number };
    return row.user_version;
  }

  #stmt(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  #tx<T>(fn: () => T): T {
    // Inside a group commit the member's savepoint already makes `fn` all-or-nothing.
    if (this.#db.isTransaction) return fn();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = fn();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  async #run<T>(operation: string, fn: () => T): Promise<T> {
    const deadline = Date.now() + this.#busyTimeoutMs;
    for (let tries = 0; ; tries++) {
      if (this.#closed) throw new StoreUnavailableError(operation, new Error("store is closed"));
      try {
        return fn();
      } catch (error) {
        if (error instanceof HeraldError) throw error;
        // Another process holds the lock: every operation is one transaction (rolled back on
        // error) or one statement, so trying again is safe. Wait without holding the loop.
        if (isBusy(error) && Date.now() < deadline) {
          await sleep(
            Math.min(5 * 2 ** Math.min(tries, 4), 50, Math.max(1, deadline - Date.now())),
          );
          continue;
        }
        throw new StoreUnavailableError(operation, error);
      }
    }
  }

  /** A write: into the next group commit, or (`groupCommit: false`) its own transaction now. */
  #write<T>(operation: string, fn: () => T): Promise<T> {
    return this.#grouped ? this.#group.run(operation, fn) : this.#run(operation, fn);
  }

  // ── send intents and the outbound registry: ./IntentTables.ts

  enqueueIntents(inputs: readonly NewSendIntent[]): Promise<EnqueueResult[]> {
    return this.#write("enqueueIntents", () => this.#intents.enqueueIntents(inputs));
  }

  getIntent(id: string): Promise<DurableSendIntent | undefined> {
    return this.#run("getIntent", () => this.#intents.getIntent(id));
  }

  getIntentStatuses(ids: readonly string[]): Promise<IntentStatusRow[]> {
    return this.#run("getIntentStatuses", () => this.#intents.getIntentStatuses(ids));
  }

  getIntentByIdempotencyKey(key: string): Promise<DurableSendIntent | undefined> {
    return this.#run("getIntentByIdempotencyKey", () =>
      this.#intents.getIntentByIdempotencyKey(key),
    );
  }

  leaseDueIntents(request: LeaseRequest): Promise<DurableSendIntent[]> {
    return this.#write("leaseDueIntents", () => this.#intents.leaseDueIntents(request));
  }

  renewLease(id: string, owner: string, expiresAt: number): Promise<boolean> {
    return this.#write("renewLease", () => this.#intents.renewLease(id, owner, expiresAt));
  }

  releaseLease(id: string, owner: string): Promise<boolean> {
    return this.#write("releaseLease", () => this.#intents.releaseLease(id, owner));
  }

  transitionIntents(transitions: readonly IntentTransition[]): Promise<DurableSendIntent[]> {
    return this.#write("transitionIntents", () => this.#intents.transitionIntents(transitions));
  }

  updateIntent(
    id: string,
    expect: { status: IntentStatus; owner?: string },
    patch: IntentPatch,
  ): Promise<DurableSendIntent> {
    return this.#write("updateIntent", () => this.#intents.updateIntent(id, expect, patch));
  }

  listIntents(query: IntentQuery = {}): Promise<DurableSendIntent[]> {
    return this.#run("listIntents", () => this.#intents.listIntents(query));
  }

  listRecoveryCandidates(query: RecoveryQuery): Promise<DurableSendIntent[]> {
    return this.#run("listRecoveryCandidates", () => this.#intents.listRecoveryCandidates(query));
  }

  countIntents(filter: { channel?: string } = {}): Promise<Record<IntentStatus, number>> {
    return this.#run("countIntents", () => this.#intents.countIntents(filter));
  }

  purgeTerminalIntents(options: { before: number; limit: number }): Promise<number> {
    return this.#write("purgeTerminalIntents", () => this.#intents.purgeTerminalIntents(options));
  }

  lookupReceipt(key: {
    channel: string;
    accountId?: string;
    platformMessageId: string;
    anyAccount?: boolean;
  }): Promise<(ReceiptRecord & { receipt?: MessageReceipt }) | undefined> {
    return this.#run("lookupReceipt", () => this.#intents.lookupReceipt(key));
  }

  // ── inbound tables (dedupe, watermarks, ledger, dead letters): ./InboundTables.ts

  acquireDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; leaseMs: number },
  ): Promise<DedupeAcquireResult> {
    return this.#write("acquireDedupe", () => this.#inbound.acquireDedupe(key, options));
  }

  renewDedupe(key: DedupeKey, owner: string, leaseExpiresAt: number): Promise<boolean> {
    return this.#write("renewDedupe", () => this.#inbound.renewDedupe(key, owner, leaseExpiresAt));
  }

  completeDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; ttlMs?: number; meta?: unknown },
  ): Promise<boolean> {
    return this.#write("completeDedupe", () => this.#inbound.completeDedupe(key, options));
  }

  releaseDedupe(key: DedupeKey, owner: string): Promise<boolean> {
    return this.#write("releaseDedupe", () => this.#inbound.releaseDedupe(key, owner));
  }

  getDedupe(key: DedupeKey): Promise<DedupeRecord | undefined> {
    return this.#run("getDedupe", () => this.#inbound.getDedupe(key));
  }

  purgeDedupe(options: { now: number; limit: number }): Promise<number> {
    return this.#write("purgeDedupe", () => this.#inbound.purgeDedupe(options));
  }

  getWatermark(key: WatermarkKey): Promise<string | undefined> {
    return this.#run("getWatermark", () => this.#inbound.getWatermark(key));
  }

  setWatermark(key: WatermarkKey, value: string): Promise<void> {
    return this.#write("setWatermark", () => this.#inbound.setWatermark(key, value));
  }

  appendLedger(events: readonly NewLedgerEvent[]): Promise<LedgerEvent[]> {
    return this.#write("appendLedger", () => this.#inbound.appendLedger(events));
  }

  readLedger(query: {
    conversation: string;
    fromSeq?: number;
    toSeq?: number;
    limit?: number;
  }): Promise<LedgerEvent[]> {
    return this.#run("readLedger", () => this.#inbound.readLedger(query));
  }

  putDeadLetter(letter: NewDeadLetter): Promise<DeadLetter> {
    return this.#write("putDeadLetter", () => this.#inbound.putDeadLetter(letter));
  }

  getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    return this.#run("getDeadLetter", () => this.#inbound.getDeadLetter(id));
  }

  listDeadLetters(
    query: { channel?: string; status?: DeadLetter["status"]; limit?: number } = {},
  ): Promise<DeadLetter[]> {
    return this.#run("listDeadLetters", () => this.#inbound.listDeadLetters(query));
  }

  markDeadLetter(id: string, status: "replayed" | "discarded", now: number): Promise<void> {
    return this.#write("markDeadLetter", () => this.#inbound.markDeadLetter(id, status, now));
  }

  // ── lifecycle ─────────────────────────────────────────────────────────────

  schemaVersion(): Promise<number> {
    return this.#run("schemaVersion", () => this.#version());
  }

  /**
   * Group-commit counters since open: `groups` transactions committed carrying `members` write
   * operations (members ÷ groups = operations per fsync).
   */
  /** True unless group commit is off (`groupCommit: false`); see `MessageStateStore`. */
  get groupsWritesPerTick(): boolean {
    return this.#grouped;
  }

  get groupCommitStats(): { readonly groups: number; readonly members: number } {
    return { ...this.#group.stats };
  }

  /** Closes the store after the writes already called have committed (or failed). */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#group.drain();
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.#db.close();
  }
}
