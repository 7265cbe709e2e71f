/**
 * The SQLite store off the event loop ([H19] item 2, [H20] item 6): {@link SqliteStateStore}
 * runs in a `node:worker_threads` Worker, and the main thread talks to it through
 * {@link SqliteWorkerStore}. Fsyncs, group commits and waits for another process's write lock
 * then never hold the main thread: timers, `/livez` and webhooks keep running.
 *
 * - **Same tick, same transaction.** Calls made in one main-thread tick are posted as one batch;
 *   the worker starts them in one tick, so its group commit writes them in one transaction.
 * - **Durability unchanged.** A call resolves only after the worker's store resolved it, i.e.
 *   after its `COMMIT` returned.
 * - **Same errors.** Typed errors arrive as the same classes with the same fields and message
 *   (`errorCodec.ts`).
 * - **Same values.** Arguments are written as the in-thread store writes them (JSON: functions
 *   dropped, `toJSON` applied), never failed by structured clone (`args.ts`).
 * - **Never hangs, comes back.** When the worker dies (a bug, out of memory, `terminate`), every
 *   call in flight rejects with {@link StoreUnavailableError} (a write among them may have
 *   committed, as when a network store's connection drops), calls made while a new worker
 *   opens the database reject the same way, and later calls run on the new worker
 *   (`workerRestarts` counts them; retries back off 100 ms → 5 s). After `close()` every call
 *   rejects.
 * - **Gives up on a crash loop.** A worker that keeps dying, or a database no replacement can
 *   open, is not restarted forever: after `crashLoop.maxCrashes` crashes (deaths and failed
 *   restarts) within `crashLoop.windowMs`, the store is failed for good — one error line is
 *   logged saying why, and every call (readiness probes included) rejects with
 *   {@link StoreFailedError} (`HERALD_STORE_FAILED`) until the process restarts.
 * - **Does not keep the process alive** while idle: the worker is referenced only while calls
 *   are in flight (and while `close()` runs), like the sockets of a network store.
 *
 * @module
 */
import type { Worker } from "node:worker_threads";
import type { HeraldLogger } from "../../../logger.ts";
import { silentLogger } from "../../../logger.ts";
import type { DurableSendIntent, IntentStatus } from "../../../message/intent.ts";
import type { MessageReceipt } from "../../../message/receipt.ts";
import { type StoreFailedError, StoreUnavailableError } from "../../errors.ts";
import type { MessageStateStore } from "../../MessageStateStore.ts";
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
} from "../../types.ts";
import { wireArgs } from "./args.ts";
import { CrashLoop } from "./crashLoop.ts";
import type { CallMethod, GroupCommitStats, SqliteWorkerOptions } from "./protocol.ts";
import { startWorker } from "./startWorker.ts";
import { WorkerSupervisor } from "./supervisor.ts";

export type { SqliteWorkerOptions } from "./protocol.ts";

/**
 * Options of {@link openSqliteStateStore}: the store's ({@link SqliteWorkerOptions}, posted to
 * the worker) and the main thread's own.
 */
export type SqliteWorkerStoreOptions = SqliteWorkerOptions & {
  /**
   * When a worker that keeps crashing is given up on: `maxCrashes` crashes (a worker died, or a
   * replacement failed to open the database) within `windowMs` ms fail the store for good
   * ({@link StoreFailedError}).
   * @defaultValue `{ maxCrashes: 10, windowMs: 60_000 }`
   */
  crashLoop?: { maxCrashes?: number | undefined; windowMs?: number | undefined } | undefined;
  /** Where the line saying the store gave up goes. @defaultValue silentLogger */
  logger?: HeraldLogger | undefined;
};

/**
 * Opens a SQLite state store whose database runs in a worker thread: the recommended store of
 * a running gateway or bot (see the module doc of `SqliteWorkerStore.ts`). Resolves once the
 * database is open and migrated; open errors are thrown here, as by `new SqliteStateStore`.
 * `":memory:"` works too (a private database inside the worker).
 *
 * @param options - as {@link SqliteStateStore}'s, without `clock` (the worker uses `Date.now`),
 *   and the main thread's `crashLoop` limit and `logger`.
 * @throws {@link SchemaTooNewError} when the file was written by a newer herald.
 * @throws {@link StoreUnavailableError} when the file cannot be opened or the worker not started.
 *
 * @example
 * const store = await openSqliteStateStore({ path: ".herald/state.db" });
 * const runtime = createMessageRuntime({ store, adapters: [qa] });
 */
export function openSqliteStateStore(
  options: SqliteWorkerStoreOptions,
): Promise<SqliteWorkerStore> {
  return SqliteWorkerStore.open(options);
}

/**
 * {@link MessageStateStore} on SQLite, run in a worker thread. Open with
 * {@link openSqliteStateStore}; the in-thread {@link SqliteStateStore} stays for tests and
 * scripts that want no thread.
 */
export class SqliteWorkerStore implements MessageStateStore {
  /** The database path (or `":memory:"`). */
  readonly path: string;
  readonly #options: SqliteWorkerOptions;
  /** The worker serving the store: restarts, crash loop, close (`supervisor.ts`). */
  readonly #supervisor: WorkerSupervisor;

  /**
   * True unless group commit is off (`groupCommit: false`): the calls of one tick go to the
   * worker as one message and into one group there; see `MessageStateStore`.
   */
  get groupsWritesPerTick(): boolean {
    return this.#options.groupCommit !== false;
  }

  private constructor(
    options: SqliteWorkerOptions,
    local: Pick<SqliteWorkerStoreOptions, "crashLoop" | "logger">,
    worker: Worker,
  ) {
    this.path = options.path;
    this.#options = options;
    const crashLoop = new CrashLoop(local.crashLoop, local.logger ?? silentLogger, options.path);
    this.#supervisor = new WorkerSupervisor(options, crashLoop, worker);
  }

  /**
   * Starts the worker and opens the database in it (see {@link openSqliteStateStore}).
   * @throws as {@link openSqliteStateStore}.
   */
  static async open(options: SqliteWorkerStoreOptions): Promise<SqliteWorkerStore> {
    const { crashLoop, logger, ...posted } = options;
    const worker = await startWorker(posted);
    return new SqliteWorkerStore(posted, { crashLoop, logger }, worker);
  }

  /** How many times a worker that died was replaced since open (for operators and tests). */
  get workerRestarts(): number {
    return this.#supervisor.restarts;
  }

  /**
   * Set once the store gave up on a worker that kept crashing (see `crashLoop`): what every
   * call rejects with from then on. `undefined` while the store works or restarts its worker.
   */
  get failure(): StoreFailedError | undefined {
    return this.#supervisor.failure;
  }

  #call<T>(method: CallMethod, args: unknown[]): Promise<T> {
    const refused = this.#supervisor.refusal(method);
    if (refused) return Promise.reject(refused);
    let wire: unknown[];
    try {
      // What the in-thread store would write (functions dropped, toJSON applied): ./args.ts.
      wire = wireArgs(args);
    } catch (error) {
      return Promise.reject(new StoreUnavailableError(method, error));
    }
    return this.#supervisor.calls.add<T>(method, wire);
  }

  // ── the store interface, one proxied call each ────────────────────────────

  enqueueIntents(intents: readonly NewSendIntent[]): Promise<EnqueueResult[]> {
    return this.#call("enqueueIntents", [intents]);
  }
  getIntent(id: string): Promise<DurableSendIntent | undefined> {
    return this.#call("getIntent", [id]);
  }
  getIntentStatuses(ids: readonly string[]): Promise<IntentStatusRow[]> {
    return this.#call("getIntentStatuses", [ids]);
  }
  getIntentByIdempotencyKey(idempotencyKey: string): Promise<DurableSendIntent | undefined> {
    return this.#call("getIntentByIdempotencyKey", [idempotencyKey]);
  }
  leaseDueIntents(request: LeaseRequest): Promise<DurableSendIntent[]> {
    return this.#call("leaseDueIntents", [request]);
  }
  renewLease(id: string, owner: string, expiresAt: number): Promise<boolean> {
    return this.#call("renewLease", [id, owner, expiresAt]);
  }
  releaseLease(id: string, owner: string): Promise<boolean> {
    return this.#call("releaseLease", [id, owner]);
  }
  transitionIntents(transitions: readonly IntentTransition[]): Promise<DurableSendIntent[]> {
    return this.#call("transitionIntents", [transitions]);
  }
  updateIntent(
    id: string,
    expect: { status: IntentStatus; owner?: string },
    patch: IntentPatch,
  ): Promise<DurableSendIntent> {
    return this.#call("updateIntent", [id, expect, patch]);
  }
  listIntents(query?: IntentQuery): Promise<DurableSendIntent[]> {
    return this.#call("listIntents", query === undefined ? [] : [query]);
  }
  listRecoveryCandidates(query: RecoveryQuery): Promise<DurableSendIntent[]> {
    return this.#call("listRecoveryCandidates", [query]);
  }
  countIntents(filter?: { channel?: string }): Promise<Record<IntentStatus, number>> {
    return this.#call("countIntents", filter === undefined ? [] : [filter]);
  }
  purgeTerminalIntents(options: { before: number; limit: number }): Promise<number> {
    return this.#call("purgeTerminalIntents", [options]);
  }
  lookupReceipt(key: {
    channel: string;
    accountId?: string;
    platformMessageId: string;
    anyAccount?: boolean;
  }): Promise<(ReceiptRecord & { receipt?: MessageReceipt }) | undefined> {
    return this.#call("lookupReceipt", [key]);
  }
  acquireDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; leaseMs: number },
  ): Promise<DedupeAcquireResult> {
    return this.#call("acquireDedupe", [key, options]);
  }
  renewDedupe(key: DedupeKey, owner: string, leaseExpiresAt: number): Promise<boolean> {
    return this.#call("renewDedupe", [key, owner, leaseExpiresAt]);
  }
  completeDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; ttlMs?: number; meta?: unknown },
  ): Promise<boolean> {
    return this.#call("completeDedupe", [key, options]);
  }
  releaseDedupe(key: DedupeKey, owner: string): Promise<boolean> {
    return this.#call("releaseDedupe", [key, owner]);
  }
  getDedupe(key: DedupeKey): Promise<DedupeRecord | undefined> {
    return this.#call("getDedupe", [key]);
  }
  purgeDedupe(options: { now: number; limit: number }): Promise<number> {
    return this.#call("purgeDedupe", [options]);
  }
  getWatermark(key: WatermarkKey): Promise<string | undefined> {
    return this.#call("getWatermark", [key]);
  }
  setWatermark(key: WatermarkKey, value: string): Promise<void> {
    return this.#call("setWatermark", [key, value]);
  }
  appendLedger(events: readonly NewLedgerEvent[]): Promise<LedgerEvent[]> {
    return this.#call("appendLedger", [events]);
  }
  readLedger(query: {
    conversation: string;
    fromSeq?: number;
    toSeq?: number;
    limit?: number;
  }): Promise<LedgerEvent[]> {
    return this.#call("readLedger", [query]);
  }
  putDeadLetter(letter: NewDeadLetter): Promise<DeadLetter> {
    return this.#call("putDeadLetter", [letter]);
  }
  getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    return this.#call("getDeadLetter", [id]);
  }
  listDeadLetters(query?: {
    channel?: string;
    status?: DeadLetter["status"];
    limit?: number;
  }): Promise<DeadLetter[]> {
    return this.#call("listDeadLetters", query === undefined ? [] : [query]);
  }
  markDeadLetter(id: string, status: "replayed" | "discarded", now: number): Promise<void> {
    return this.#call("markDeadLetter", [id, status, now]);
  }
  schemaVersion(): Promise<number> {
    return this.#call("schemaVersion", []);
  }

  /**
   * Group-commit counters since open, as `SqliteStateStore.groupCommitStats` (a getter on both
   * stores): `groups` transactions committed carrying `members` write operations, summed over
   * the workers that served the store. Counted in the worker and sent along with every batch
   * of results, so reading them costs no round trip: they include the group of every call
   * whose promise has resolved (a write still in flight may be missing).
   */
  get groupCommitStats(): GroupCommitStats {
    return this.#supervisor.groupCommitStats;
  }

  /**
   * Closes the store: the calls already made settle (writes commit or fail), the database
   * closes, the worker ends (a restart in progress is abandoned). Later calls reject with
   * {@link StoreUnavailableError}.
   */
  close(): Promise<void> {
    return this.#supervisor.close();
  }
}
