/**
 * Helpers of this package's tests: the local test database, throwaway schemas, raw clients.
 * Tests reach only the URL below (127.0.0.1 unless `HERALD_TEST_POSTGRES_URL` says otherwise).
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { scaledMs } from "@herald/core/testing";
import pg, { Client } from "pg";
import { afterEach, beforeEach } from "vitest";
import { PostgresStateStore, type PostgresStateStoreOptions } from "../PostgresStateStore.ts";

/** The test database. @defaultValue `postgres://postgres@127.0.0.1:5432/test` */
export const TEST_POSTGRES_URL =
  process.env.HERALD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh, unused schema name for one test run or one test. */
export function freshSchemaName(prefix = "herald_t"): string {
  return `${prefix}_${process.pid}_${randomBytes(5).toString("hex")}`;
}

/** Runs `fn` on a dedicated client of the test database (not pooled), then ends it. */
export async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** True when the test database answers. */
export async function postgresAvailable(): Promise<boolean> {
  try {
    await withClient((c) => c.query("SELECT 1"));
    return true;
  } catch {
    return false;
  }
}

/** Drops schemas (and everything in them); ignores ones that do not exist. */
export async function dropSchemas(names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await withClient(async (c) => {
    for (const name of names) await c.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  });
}

/**
 * Decides what a test file does without a reachable database: under CI, or when
 * `HERALD_TEST_POSTGRES_URL` is set, that is an error; on a developer machine the PostgreSQL
 * tests are skipped with a warning.
 *
 * @returns `available`, for `describe.skipIf(!available)`.
 * @throws Error when the database is required but unreachable.
 */
export function requirePostgresOrSkip(available: boolean): boolean {
  if (available) return true;
  const why = `PostgreSQL is not reachable at ${TEST_POSTGRES_URL}`;
  if (process.env.CI || process.env.HERALD_TEST_POSTGRES_URL) throw new Error(why);
  console.warn(`${why}: skipping @herald/store-postgres tests (set CI=1 to make this an error)`);
  return false;
}

/**
 * Opens stores on throwaway schemas and drops every schema it handed out in `dispose()` (call it
 * from `afterAll`). Stores opened on the same schema behave like separate processes: each has its
 * own pool.
 */
export function throwawaySchemas() {
  const schemas: string[] = [];
  const stores: PostgresStateStore[] = [];
  return {
    /** A new schema name, dropped on dispose. */
    schema(): string {
      const name = freshSchemaName();
      schemas.push(name);
      return name;
    },
    /** A store (not yet opened) on `schema`, closed on dispose. */
    store(schema: string, options: Partial<PostgresStateStoreOptions> = {}): PostgresStateStore {
      const store = new PostgresStateStore({
        connectionString: TEST_POSTGRES_URL,
        schema,
        ...options,
      });
      stores.push(store);
      return store;
    },
    async dispose(): Promise<void> {
      await Promise.all(stores.map((s) => s.close()));
      await dropSchemas(schemas);
    },
  };
}

/**
 * Waits until a backend with `applicationName` is blocked on a lock, and returns its pid
 * (the store's connection, stuck mid-transaction behind a lock the test holds).
 *
 * @throws Error after `timeoutMs` (milliseconds) without such a backend.
 */
export async function blockedBackend(
  client: Client,
  applicationName: string,
  timeoutMs = 5000,
): Promise<number> {
  const deadline = Date.now() + scaledMs(timeoutMs);
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [applicationName],
    );
    if (rows[0]) return rows[0].pid;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no backend of ${applicationName} blocked on a lock within ${timeoutMs} ms`);
}

/** True when the test database's role is a superuser (`auto_explain` needs one). */
export async function isSuperuser(): Promise<boolean> {
  return withClient(
    async (c) =>
      (await c.query("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).rows[0]
        ?.rolsuper === true,
  );
}

/**
 * Makes `auto_explain` log, as notices on `client`, the analyzed plan of every statement it runs
 * from now on — nested ones too (the statements inside a PL/pgSQL function).
 *
 * @returns the plans logged so far (a live list). Needs a superuser ({@link isSuperuser}).
 */
export async function logPlans(client: Client): Promise<string[]> {
  const logged: string[] = [];
  client.on("notice", (n) => logged.push(String(n.message)));
  for (const setting of [
    "LOAD 'auto_explain'",
    "SET auto_explain.log_min_duration = 0",
    "SET auto_explain.log_nested_statements = on",
    "SET auto_explain.log_analyze = on",
    "SET client_min_messages = log",
  ]) {
    await client.query(setting);
  }
  return logged;
}

/**
 * Records the statements every `pg` client of this process sends during each test of the
 * file (the first `words` words of each), for tests that count round trips. Call at the top
 * level of a test file; `reset()` starts a new count.
 */
export function recordStatements(words = 1): { readonly sent: string[]; reset(): void } {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  beforeEach(() => {
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
      sent.push(String(text).trim().split(/\s+/).slice(0, words).join(" "));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  });
  afterEach(() => {
    pg.Client.prototype.query = query;
  });
  return {
    sent,
    reset: () => {
      sent.length = 0;
    },
  };
}
