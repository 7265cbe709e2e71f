/**
 * Test helper for the folded-first-attempt attack tests (`foldAttack.*.test.ts`): a real-clock
 * runtime over a SQLite *file* store, opened in this thread or in its worker thread, delivering to
 * a {@link FakePlatform} through the fake adapter.
 *
 * Unlike `deliveryHarness` in `./harness.ts` (in-memory store, manual clock, fixed backoff) it keeps the
 * runtime's own delivery defaults except `pollIntervalMs: 5`, so a test sees the lease, backoff and
 * rate limits it asks for and nothing else.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMessageRuntime, type MessageRuntime } from "../../runtime.ts";
import type { MessageStateStore } from "../../state/MessageStateStore.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { openSqliteStateStore } from "../../state/sqlite/worker/SqliteWorkerStore.ts";
import {
  createFakeAdapter,
  type FakeAdapterOptions,
  type FakeTransport,
  inProcessTransport,
} from "../../testing/fakeAdapter.ts";
import { FakePlatform } from "../../testing/fakePlatform.ts";
import type { DeliveryOptions } from "../deps.ts";

/** Where the SQLite store runs: this thread ({@link SqliteStateStore}) or its worker thread. */
export type StoreThread = "main" | "worker";

/** Both store threads, for a `for … of` around a `describe`. */
export const STORE_THREADS = ["main", "worker"] as const satisfies readonly StoreThread[];

/**
 * A fresh temp directory for one test file's SQLite files.
 * @param prefix - the directory name's prefix (under the OS temp dir).
 * @returns `file(name)`, a new `<name>-<n>.db` path in it on each call, and `remove()`, which
 *   deletes the directory (pass it to `afterAll`).
 */
export function tempDbFiles(prefix: string): { file(name: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let files = 0;
  return {
    file: (name) => join(dir, `${name}-${++files}.db`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Opens a SQLite store on `path`, in this thread or in its worker thread.
 * @param busyTimeoutMs - passed on only when given (and non-zero).
 */
export function openFoldStore(
  thread: StoreThread,
  path: string,
  busyTimeoutMs?: number,
): Promise<MessageStateStore> {
  const options = { path, ...(busyTimeoutMs ? { busyTimeoutMs } : {}) };
  return thread === "worker"
    ? openSqliteStateStore(options)
    : Promise.resolve(new SqliteStateStore(options));
}

/** Options of {@link foldRuntime}. */
export type FoldRuntimeOptions = {
  thread: StoreThread;
  /** The SQLite file (see {@link tempDbFiles}); several runtimes may share one. */
  path: string;
  /** The store's busy timeout (e.g. short, for a file another connection holds locked). */
  busyTimeoutMs?: number;
  /**
   * The platform to deliver to: pass one to share it between runtimes (two processes, a
   * restart) or to arm faults first; otherwise a new one with {@link idempotent}.
   */
  platform?: FakePlatform;
  /**
   * Declares native idempotency on the fake adapter and, for a new platform, makes the platform
   * deduplicate keys.
   * @defaultValue true
   */
  idempotent?: boolean;
  /** Further fake adapter options (`reconcile`, `rateLimits`, `requestTimeoutMs`, …). */
  adapter?: Omit<FakeAdapterOptions, "transport" | "idempotent">;
  /** The adapter's transport; defaults to `inProcessTransport(platform)`. */
  transport?: FakeTransport;
  /** Merged over `{ pollIntervalMs: 5 }`. */
  delivery?: DeliveryOptions;
  /** Runs on the opened store before the runtime is built (rows a previous process left). */
  seed?: (store: MessageStateStore) => Promise<unknown>;
  /**
   * Start the runtime before returning.
   * @defaultValue true
   */
  start?: boolean;
};

/** What {@link foldRuntime} built. */
export type FoldRuntime = {
  runtime: MessageRuntime;
  store: MessageStateStore;
  platform: FakePlatform;
  /** `runtime.stop(200)`, then `store.close()`. */
  close(): Promise<void>;
};

/**
 * Builds (and by default starts) a runtime over a SQLite file store and one fake adapter
 * delivering to a fake platform.
 */
export async function foldRuntime(options: FoldRuntimeOptions): Promise<FoldRuntime> {
  const idempotent = options.idempotent ?? true;
  const platform = options.platform ?? new FakePlatform({ idempotent });
  const store = await openFoldStore(options.thread, options.path, options.busyTimeoutMs);
  await options.seed?.(store);
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        ...options.adapter,
        idempotent,
        transport: options.transport ?? inProcessTransport(platform),
      }),
    ],
    delivery: { pollIntervalMs: 5, ...options.delivery },
  });
  if (options.start ?? true) await runtime.start();
  return {
    runtime,
    store,
    platform,
    async close() {
      await runtime.stop(200);
      await store.close();
    },
  };
}
