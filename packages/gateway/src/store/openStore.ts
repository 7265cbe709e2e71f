/**
 * Opens the state store a config names.
 *
 * @module
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import {
  type HeraldLogger,
  type MessageStateStore,
  openSqliteStateStore,
  SqliteStateStore,
  type SqliteWorkerStore,
  type SqliteWorkerStoreOptions,
} from "@herald/core";
import { ConfigError } from "../config/errors.ts";
import type { HeraldConfig } from "../config/schema.ts";
import {
  importFromApp,
  installCommand,
  PackageNotInstalledError,
} from "../plugins/importFromApp.ts";
import { MemoryStoreNotInspectableError, NoStoreError } from "./readerErrors.ts";
import { acquireStoreLock } from "./storeLock.ts";

/** Options of {@link openStore}. */
export type OpenStoreOptions = {
  /**
   * Take the one-gateway-per-file lock of a SQLite store (see `StoreLockedError`); released
   * by `store.close()`. Gateways set it; CLI readers do not. PostgreSQL takes no lock.
   * @defaultValue false
   */
  lock?: boolean;
  /**
   * Open for a CLI reader: never create anything. A `:memory:` store throws
   * {@link MemoryStoreNotInspectableError}, a SQLite file that does not exist
   * {@link NoStoreError}. @defaultValue false
   */
  reader?: boolean;
  /**
   * Where a SQLite worker store logs that it gave up on a worker that kept crashing
   * (`StoreFailedError`). @defaultValue silent
   */
  logger?: HeraldLogger;
  /** The SQLite worker store's crash-loop limit (`SqliteWorkerStoreOptions.crashLoop`). */
  crashLoop?: SqliteWorkerStoreOptions["crashLoop"];
};

/**
 * Opens (and migrates) the store of `config`; SQLite paths resolve against `dir`, and
 * `":memory:"` is a private in-memory database (gone when the store closes).
 *
 * A SQLite file is opened in a worker thread (`openSqliteStateStore`): commits, fsyncs and
 * waits for another process's write lock never hold the gateway's event loop, so `/livez`,
 * webhooks and timers keep answering. `:memory:` stays on the main thread (nothing to fsync).
 *
 * @throws {@link ConfigError} when the PostgreSQL URL variable is unset or the package missing.
 * @throws StoreLockedError with `lock` when another gateway has the SQLite file open.
 * @throws MemoryStoreNotInspectableError / NoStoreError with `reader` (see {@link OpenStoreOptions}).
 * @throws StoreUnavailableError when the database cannot be opened.
 */
export async function openStore(
  config: HeraldConfig,
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
  options: OpenStoreOptions = {},
): Promise<MessageStateStore> {
  const store = config.store;
  if ("sqlite" in store) {
    const { synchronous } = store.sqlite;
    if (store.sqlite.path === ":memory:") {
      if (options.reader) throw new MemoryStoreNotInspectableError();
      return new SqliteStateStore({ path: ":memory:", synchronous });
    }
    const path = resolve(dir, store.sqlite.path);
    if (options.reader && !existsSync(path)) throw new NoStoreError(path);
    mkdirSync(dirname(path), { recursive: true });
    const lock = options.lock ? acquireStoreLock(path) : undefined;
    let opened: SqliteWorkerStore;
    try {
      opened = await openSqliteStateStore({
        path,
        synchronous,
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.crashLoop ? { crashLoop: options.crashLoop } : {}),
      });
    } catch (error) {
      lock?.release();
      throw error;
    }
    if (!lock) return opened;
    const close = opened.close.bind(opened);
    return Object.assign(opened, {
      async close() {
        try {
          await close();
        } finally {
          lock.release();
        }
      },
    });
  }
  const url = Object.hasOwn(env, store.postgres.urlEnv) ? env[store.postgres.urlEnv] : undefined;
  if (!url) {
    throw new ConfigError("config", [
      {
        path: "store.postgres.urlEnv",
        message: `environment variable ${store.postgres.urlEnv} is not set`,
        fix: `export ${store.postgres.urlEnv}=postgres://user@host:5432/db`,
      },
    ]);
  }
  let mod: typeof import("@herald/store-postgres");
  try {
    // Installed next to the config, as a plugin is (then the current folder, then ours).
    mod = await importFromApp<typeof import("@herald/store-postgres")>("@herald/store-postgres", [
      dir,
      process.cwd(),
    ]);
  } catch (error) {
    if (!(error instanceof PackageNotInstalledError)) throw error;
    throw new ConfigError("config", [
      {
        path: "store.postgres",
        message: error.message,
        fix: `install it next to the config: ${installCommand("@herald/store-postgres", dir)}`,
      },
    ]);
  }
  return mod.PostgresStateStore.connect({
    connectionString: url,
    schema: store.postgres.schema,
    pool: { max: store.postgres.poolMax },
  });
}
