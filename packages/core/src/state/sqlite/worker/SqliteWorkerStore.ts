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
// The module's own setImmediate: test suites that fake the global timers do not stall calls.
import { setImmediate } from "node:timers";
import { Worker } from "node:worker_threads";
import type { HeraldLogger } from "../../../logger.ts";
import { silentLogger } from "../../../logger.ts";
import type { DurableSendIntent, IntentStatus } from "../../../message/intent.ts";
import type { MessageReceipt } from "../../../message/receipt.ts";
import { StoreFailedError, StoreUnavailableError } from "../../errors.ts";
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
  WatermarkKey,
} from "../../types.ts";
import { wireArgs } from "./args.ts";
import { decodeError } from "./errorCodec.ts";
import type {
  CallMethod,
  FromWorker,
  GroupCommitStats,
  SqliteWorkerOptions,
  ToWorker,
} from "./protocol.ts";

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

/** Defaults of {@link SqliteWorkerStoreOptions.crashLoop}. */
const CRASH_LOOP = { maxCrashes: 10, windowMs: 60_000 } as const;

// Source: src/state/sqlite/worker/SqliteWorkerStore.ts → ./sqliteWorker.ts. Built: the bundle
// holding this code sits in dist/ (index.mjs or a shared chunk) → ./sqliteWorker.mjs.
const workerUrl = import.meta.url.endsWith(".ts")
  ? new URL("./sqliteWorker.ts", import.meta.url)
  : new URL("./sqliteWorker.mjs", import.meta.url);

/** Most calls in one posted message (the group commit's default `maxMembers`). */
const MAX_BATCH = 256;

type Call = {
  id: number;
  method: CallMethod;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

/** First wait before starting a replacement worker again, then doubling up to the max (ms). */
const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 5_000;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Starts a worker and resolves once its database is open and migrated. */
async function startWorker(options: SqliteWorkerOptions): Promise<Worker> {
  let worker: Worker;
  try {
    // The worker inherits the process's flags, except `--input-type` (it applies to the
    // main entry only and makes a worker's file entry fail to load).
    const inherited = process.execArgv.filter((a) => !a.startsWith("--input-type"));
    worker = new Worker(workerUrl, {
      workerData: options,
      ...(inherited.length < process.execArgv.length ? { execArgv: inherited } : {}),
    });
  } catch (error) {
    throw new StoreUnavailableError(`open ${options.path}`, error);
  }
  // Opening holds the process like any call in flight; `#listen` unrefs once idle.
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) =>
      reject(
        new StoreUnavailableError(
          `open ${options.path}`,
          new Error(`store worker exited with code ${code}`),
        ),
      );
    const onError = (error: unknown) =>
      reject(new StoreUnavailableError(`open ${options.path}`, error));
    worker.once("exit", onExit);
    worker.once("error", onError);
    worker.once("message", (message: FromWorker) => {
      worker.off("exit", onExit);
      worker.off("error", onError);
      if (message.type === "ready") resolve();
      else if (message.type === "openFailed") {
        void worker.terminate();
        reject(decodeError(message.error));
      } else reject(new Error(`store worker sent ${message.type} before ready`));
    });
  });
  return worker;
}

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
  readonly #crashLoop: { maxCrashes: number; windowMs: number };
  readonly #logger: HeraldLogger;
  /** Epoch ms of the crashes within the last `crashLoop.windowMs`. */
  #crashes: number[] = [];
  /** Set once the store gave up on a crash loop: every call rejects with it. */
  #failed: StoreFailedError | undefined;
  /** The last crash's error, once failed. */
  #failedBy: unknown;
  #worker: Worker;
  readonly #inflight = new Map<number, Call>();
  #batch: Call[] = [];
  #scheduled = false;
  #nextId = 1;
  /** Set once the store closed: every call rejects with it. */
  #dead: unknown;
  /** Set while the worker is being replaced after it died: calls reject with it meanwhile. */
  #down: unknown;
  #restarts = 0;
  /** The current worker's group-commit counters, as of its last results. */
  #stats: GroupCommitStats = { groups: 0, members: 0 };
  /** What the workers that died had counted. */
  #statsBefore: GroupCommitStats = { groups: 0, members: 0 };
  #restarting: Promise<void> | undefined;
  #wakeRestart: (() => void) | undefined;
  #closing: Promise<void> | undefined;
  #onClosed: (() => void) | undefined;

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
    this.#crashLoop = {
      maxCrashes: Math.max(1, local.crashLoop?.maxCrashes ?? CRASH_LOOP.maxCrashes),
      windowMs: Math.max(0, local.crashLoop?.windowMs ?? CRASH_LOOP.windowMs),
    };
    this.#logger = local.logger ?? silentLogger;
    this.#worker = worker;
  }

  /**
   * Starts the worker and opens the database in it (see {@link openSqliteStateStore}).
   * @throws as {@link openSqliteStateStore}.
   */
  static async open(options: SqliteWorkerStoreOptions): Promise<SqliteWorkerStore> {
    const { crashLoop, logger, ...posted } = options;
    const worker = await startWorker(posted);
    const store = new SqliteWorkerStore(posted, { crashLoop, logger }, worker);
    store.#listen(worker);
    return store;
  }

  /** How many times a worker that died was replaced since open (for operators and tests). */
  get workerRestarts(): number {
    return this.#restarts;
  }

  /**
   * Set once the store gave up on a worker that kept crashing (see `crashLoop`): what every
   * call rejects with from then on. `undefined` while the store works or restarts its worker.
   */
  get failure(): StoreFailedError | undefined {
    return this.#failed;
  }

  /**
   * Counts one crash (a worker died or a replacement failed to open); on the limit, fails the
   * store for good. @returns true when the store is now failed (no restart).
   */
  #crashed(cause: unknown): boolean {
    const now = Date.now();
    const { maxCrashes, windowMs } = this.#crashLoop;
    this.#crashes = this.#crashes.filter((at) => now - at < windowMs);
    this.#crashes.push(now);
    if (this.#crashes.length < maxCrashes) return false;
    const failed = new StoreFailedError("restart", this.#crashes.length, windowMs, cause);
    this.#failed = failed;
    this.#failedBy = cause;
    this.#logger.error(
      { err: cause, crashes: failed.crashes, windowMs, path: this.path, code: failed.code },
      `sqlite store worker crashed ${failed.crashes} times within ${windowMs} ms; no longer restarting it: every store call fails (HERALD_STORE_FAILED) until the process restarts`,
    );
    return true;
  }

  #listen(worker: Worker): void {
    worker.on("message", (message: FromWorker) => {
      if (worker !== this.#worker) return;
      if (message.type === "results") {
        this.#stats = message.stats;
        for (const r of message.results) {
          const call = this.#inflight.get(r.id);
          if (!call) continue;
          this.#inflight.delete(r.id);
          if (r.ok) call.resolve(r.value);
          else call.reject(decodeError(r.error));
        }
        // Not while closing: close() holds the process until the worker closed the database.
        if (this.#inflight.size === 0 && this.#batch.length === 0 && !this.#closing) {
          worker.unref();
        }
      } else if (message.type === "closed") this.#onClosed?.();
    });
    worker.on("error", (error) => this.#lost(worker, error));
    worker.on("exit", (code) =>
      this.#lost(worker, new Error(`store worker exited with code ${code}`)),
    );
    worker.unref();
  }

  /**
   * A worker ended. While closing: the close is done. Otherwise it died (a bug, out of memory):
   * every call in flight fails (its outcome is unknown to the caller, as when a network store's
   * connection drops: a write may have committed), and a new worker is started, so the store
   * comes back like a reconnecting network store instead of staying down for good.
   */
  #lost(worker: Worker, cause: unknown): void {
    if (worker !== this.#worker) return;
    if (this.#closing) {
      this.#dead ??= cause;
      this.#failPending(cause);
      this.#onClosed?.();
      return;
    }
    if (this.#down !== undefined || this.#failed) return;
    this.#down = cause;
    this.#failPending(cause);
    if (this.#crashed(cause)) return;
    this.#restarting = this.#restart(cause);
  }

  #failPending(cause: unknown): void {
    const calls = [...this.#inflight.values(), ...this.#batch];
    this.#inflight.clear();
    this.#batch = [];
    for (const c of calls) c.reject(new StoreUnavailableError(c.method, cause));
  }

  /** Starts replacement workers, backing off 100 ms → 5 s, until one opens or the store closes. */
  async #restart(cause: unknown): Promise<void> {
    for (
      let delay = RESTART_FIRST_MS;
      !this.#closing;
      delay = Math.min(delay * 2, RESTART_MAX_MS)
    ) {
      try {
        const worker = await startWorker(this.#options);
        if (this.#closing) {
          await worker.terminate();
          return;
        }
        this.#statsBefore = this.groupCommitStats;
        this.#stats = { groups: 0, members: 0 };
        this.#worker = worker;
        this.#listen(worker);
        this.#restarts++;
        this.#down = undefined;
        return;
      } catch (error) {
        this.#down = new Error(
          `store worker died (${errorText(cause)}); restarting failed: ${errorText(error)}`,
        );
        if (this.#crashed(error)) return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        timer.unref();
        this.#wakeRestart = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wakeRestart = undefined;
    }
  }

  #call<T>(method: CallMethod, args: unknown[]): Promise<T> {
    const failed = this.#failed;
    if (failed) {
      return Promise.reject(
        new StoreFailedError(method, failed.crashes, failed.windowMs, this.#failedBy),
      );
    }
    if (this.#dead !== undefined) {
      return Promise.reject(new StoreUnavailableError(method, this.#dead));
    }
    if (this.#down !== undefined) {
      return Promise.reject(new StoreUnavailableError(method, this.#down));
    }
    if (this.#closing) {
      return Promise.reject(new StoreUnavailableError(method, new Error("store is closed")));
    }
    let wire: unknown[];
    try {
      // What the in-thread store would write (functions dropped, toJSON applied): ./args.ts.
      wire = wireArgs(args);
    } catch (error) {
      return Promise.reject(new StoreUnavailableError(method, error));
    }
    return new Promise<T>((resolve, reject) => {
      const id = this.#nextId++;
      this.#batch.push({
        id,
        method,
        args: wire,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (this.#batch.length === 1 && this.#inflight.size === 0) this.#worker.ref();
      if (!this.#scheduled) {
        this.#scheduled = true;
        // setImmediate, not a microtask: the continuations of the last results (each several
        // promise hops deep) all get to issue their next call into the same batch.
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(all = false): void {
    this.#scheduled = false;
    // A huge burst goes as several messages, one per tick: cloning 10,000 calls at once would
    // hold the loop for what the worker saves it. A group commits at most 256 members anyway.
    const batch = all ? this.#batch : this.#batch.slice(0, MAX_BATCH);
    this.#batch = all ? [] : this.#batch.slice(batch.length);
    if (this.#batch.length > 0) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
    if (batch.length === 0 || this.#dead !== undefined || this.#down !== undefined) return;
    if (this.#failed) return;
    for (const c of batch) this.#inflight.set(c.id, c);
    const wire = (calls: Call[]): ToWorker => ({
      type: "calls",
      calls: calls.map(({ id, method, args }) => ({ id, method, args })),
    });
    try {
      this.#worker.postMessage(wire(batch));
    } catch {
      // An argument that looked plain but cannot be cloned (a Proxy, …): post each call alone,
      // the offending ones as their JSON round trip, so only a call JSON rejects too fails.
      for (const c of batch) {
        try {
          this.#worker.postMessage(wire([c]));
        } catch {
          try {
            this.#worker.postMessage(wire([{ ...c, args: wireArgs(c.args, true) }]));
          } catch (error) {
            this.#inflight.delete(c.id);
            c.reject(new StoreUnavailableError(c.method, error));
          }
        }
      }
      // A rejected call may have been the last one in flight: an idle worker must not keep
      // the process alive.
      if (this.#inflight.size === 0 && this.#batch.length === 0 && !this.#closing) {
        this.#worker.unref();
      }
    }
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
    return {
      groups: this.#statsBefore.groups + this.#stats.groups,
      members: this.#statsBefore.members + this.#stats.members,
    };
  }

  /**
   * Closes the store: the calls already made settle (writes commit or fail), the database
   * closes, the worker ends (a restart in progress is abandoned). Later calls reject with
   * {@link StoreUnavailableError}.
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closing = (async () => {
      this.#wakeRestart?.();
      await this.#restarting;
      if (this.#dead === undefined && this.#down === undefined && !this.#failed) {
        const closed = new Promise<void>((resolve) => {
          this.#onClosed = resolve;
        });
        this.#flush(true);
        this.#worker.ref();
        this.#worker.postMessage({ type: "close" } satisfies ToWorker);
        await closed;
      }
      this.#dead ??= new Error("store is closed");
      await this.#worker.terminate();
    })();
    return this.#closing;
  }
}
