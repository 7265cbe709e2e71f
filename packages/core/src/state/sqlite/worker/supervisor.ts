/**
 * The worker thread behind {@link SqliteWorkerStore}, kept serving: it is listened to (results
 * settle their calls, `callBatch.ts`), replaced when it dies (every call in flight rejects with
 * {@link StoreUnavailableError}; replacements back off 100 ms → 5 s), given up on after a crash
 * loop (`crashLoop.ts`), and closed on `close()`. It is referenced only while calls are in
 * flight (and while `close()` runs).
 *
 * @module
 */
import type { Worker } from "node:worker_threads";
import { StoreFailedError, StoreUnavailableError } from "../../errors.ts";
import { CallBatch } from "./callBatch.ts";
import type { CrashLoop } from "./crashLoop.ts";
import type {
  CallMethod,
  FromWorker,
  GroupCommitStats,
  SqliteWorkerOptions,
  ToWorker,
} from "./protocol.ts";
import { startWorker } from "./startWorker.ts";

/** First wait before starting a replacement worker again, then doubling up to the max (ms). */
const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 5_000;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Keeps one worker serving a store, from open to `close()`. */
export class WorkerSupervisor {
  readonly #options: SqliteWorkerOptions;
  /** Counts the worker's crashes; fails the store for good on a crash loop (`crashLoop.ts`). */
  readonly #crashLoop: CrashLoop;
  #worker: Worker;
  /** The calls queued for the worker or in flight there (`callBatch.ts`). */
  readonly calls: CallBatch;
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
   * @param options - posted to every worker started.
   * @param worker - the first worker, started and open (`startWorker`).
   */
  constructor(options: SqliteWorkerOptions, crashLoop: CrashLoop, worker: Worker) {
    this.#options = options;
    this.#crashLoop = crashLoop;
    this.#worker = worker;
    this.calls = new CallBatch({
      worker: () => this.#worker,
      unavailable: () =>
        this.#dead !== undefined || this.#down !== undefined || this.#failed !== undefined,
      closing: () => this.#closing !== undefined,
    });
    this.#listen(worker);
  }

  /** How many times a worker that died was replaced since open. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Set once the store gave up on a crash loop: every call rejects with it. */
  get #failed(): StoreFailedError | undefined {
    return this.#crashLoop.failed;
  }

  /** `SqliteWorkerStore.failure` (see there). */
  get failure(): StoreFailedError | undefined {
    return this.#failed;
  }

  /**
   * Why a call of `method` made now fails without reaching the worker (the store failed, closed,
   * or its worker is being replaced), or `undefined` when it can be made.
   */
  refusal(method: CallMethod): StoreFailedError | StoreUnavailableError | undefined {
    const failed = this.#failed;
    if (failed) {
      return new StoreFailedError(
        method,
        failed.crashes,
        failed.windowMs,
        this.#crashLoop.failedBy,
      );
    }
    if (this.#dead !== undefined) {
      return new StoreUnavailableError(method, this.#dead);
    }
    if (this.#down !== undefined) {
      return new StoreUnavailableError(method, this.#down);
    }
    if (this.#closing) {
      return new StoreUnavailableError(method, new Error("store is closed"));
    }
    return undefined;
  }

  #listen(worker: Worker): void {
    worker.on("message", (message: FromWorker) => {
      if (worker !== this.#worker) return;
      if (message.type === "results") {
        this.#stats = message.stats;
        this.calls.settle(message.results);
        // Not while closing: close() holds the process until the worker closed the database.
        if (this.calls.idle && !this.#closing) worker.unref();
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
      this.calls.failAll(cause);
      this.#onClosed?.();
      return;
    }
    if (this.#down !== undefined || this.#failed) return;
    this.#down = cause;
    this.calls.failAll(cause);
    if (this.#crashLoop.crashed(cause)) return;
    this.#restarting = this.#restart(cause);
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
        if (this.#crashLoop.crashed(error)) return;
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

  /** `SqliteWorkerStore.groupCommitStats` (see there): summed over the workers that served. */
  get groupCommitStats(): GroupCommitStats {
    return {
      groups: this.#statsBefore.groups + this.#stats.groups,
      members: this.#statsBefore.members + this.#stats.members,
    };
  }

  /** `SqliteWorkerStore.close` (see there). */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closing = (async () => {
      this.#wakeRestart?.();
      await this.#restarting;
      if (this.#dead === undefined && this.#down === undefined && !this.#failed) {
        const closed = new Promise<void>((resolve) => {
          this.#onClosed = resolve;
        });
        this.calls.flush(true);
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
