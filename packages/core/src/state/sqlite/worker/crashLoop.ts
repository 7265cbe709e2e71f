/**
 * The crash-loop limit of {@link SqliteWorkerStore}: counts the crashes of its worker (a worker
 * died, or a replacement failed to open the database) and, at `maxCrashes` within `windowMs`,
 * fails the store for good with {@link StoreFailedError}, logging one error line saying why.
 *
 * @module
 */
import type { HeraldLogger } from "../../../logger.ts";
import { StoreFailedError } from "../../errors.ts";

/** Defaults of `SqliteWorkerStoreOptions.crashLoop`. */
const CRASH_LOOP = { maxCrashes: 10, windowMs: 60_000 } as const;

/** Counts a store's worker crashes; set once it gave up. */
export class CrashLoop {
  readonly #limit: { maxCrashes: number; windowMs: number };
  readonly #logger: HeraldLogger;
  readonly #path: string;
  /** Epoch ms of the crashes within the last `crashLoop.windowMs`. */
  #crashes: number[] = [];
  /** Set once the store gave up on a crash loop: every call rejects with it. */
  #failed: StoreFailedError | undefined;
  /** The last crash's error, once failed. */
  #failedBy: unknown;

  /**
   * @param limit - `SqliteWorkerStoreOptions.crashLoop`.
   * @param path - the database path, for the log line.
   */
  constructor(
    limit: { maxCrashes?: number | undefined; windowMs?: number | undefined } | undefined,
    logger: HeraldLogger,
    path: string,
  ) {
    this.#limit = {
      maxCrashes: Math.max(1, limit?.maxCrashes ?? CRASH_LOOP.maxCrashes),
      windowMs: Math.max(0, limit?.windowMs ?? CRASH_LOOP.windowMs),
    };
    this.#logger = logger;
    this.#path = path;
  }

  /** Set once the store gave up: what every call rejects with from then on. */
  get failed(): StoreFailedError | undefined {
    return this.#failed;
  }

  /** The last crash's error, once failed. */
  get failedBy(): unknown {
    return this.#failedBy;
  }

  /**
   * Counts one crash (a worker died or a replacement failed to open); on the limit, fails the
   * store for good. @returns true when the store is now failed (no restart).
   */
  crashed(cause: unknown): boolean {
    const now = Date.now();
    const { maxCrashes, windowMs } = this.#limit;
    this.#crashes = this.#crashes.filter((at) => now - at < windowMs);
    this.#crashes.push(now);
    if (this.#crashes.length < maxCrashes) return false;
    const failed = new StoreFailedError("restart", this.#crashes.length, windowMs, cause);
    this.#failed = failed;
    this.#failedBy = cause;
    this.#logger.error(
      { err: cause, crashes: failed.crashes, windowMs, path: this.#path, code: failed.code },
      `sqlite store worker crashed ${failed.crashes} times within ${windowMs} ms; no longer restarting it: every store call fails (HERALD_STORE_FAILED) until the process restarts`,
    );
    return true;
  }
}
