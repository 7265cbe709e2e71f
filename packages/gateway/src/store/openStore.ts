/**
 * Opens the state store a config names.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type MessageStateStore, SqliteStateStore } from "@herald/core";
import { ConfigError } from "../config/errors.ts";
import type { HeraldConfig } from "../config/schema.ts";

/**
 * Opens (and migrates) the store of `config`; SQLite paths resolve against `dir`.
 *
 * @throws {@link ConfigError} when the PostgreSQL URL variable is unset or the package missing.
 * @throws StoreUnavailableError when the database cannot be opened.
 */
export async function openStore(
  config: HeraldConfig,
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<MessageStateStore> {
  const store = config.store;
  if ("sqlite" in store) {
    const path = resolve(dir, store.sqlite.path);
    mkdirSync(dirname(path), { recursive: true });
    return new SqliteStateStore({ path, synchronous: store.sqlite.synchronous });
  }
  const url = env[store.postgres.urlEnv];
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
    mod = await import("@herald/store-postgres");
  } catch {
    throw new ConfigError("config", [
      {
        path: "store.postgres",
        message: "@herald/store-postgres is not installed",
        fix: "pnpm add @herald/store-postgres",
      },
    ]);
  }
  return mod.PostgresStateStore.connect({
    connectionString: url,
    schema: store.postgres.schema,
    pool: { max: store.postgres.poolMax },
  });
}
