/**
 * The connection pool of one store and the two ways SQL runs on it: a single statement, or a
 * transaction on one checked-out connection. Every failure that is not a herald error becomes a
 * {@link StoreUnavailableError}; herald errors (conflicts, illegal transitions, failpoints) pass
 * through unchanged after the transaction rolled back.
 *
 * @module
 */
import { HeraldError, StoreUnavailableError } from "@herald/core";
import { Pool, type PoolClient, type PoolConfig, type QueryResultRow } from "pg";

/** Anything that runs a parameterized statement: the pool or a connection inside a transaction. */
export type Queryable = {
  query<R extends QueryResultRow = QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
};

/**
 * The store's own result parsers, so an application that changes `pg`'s global type parsers
 * (e.g. int8 → BigInt, json → string) does not change what the store reads. `bigint` stays a
 * string here and is range-checked by the row mappers; unknown types stay text.
 */
const PARSERS: Record<number, (value: string) => unknown> = {
  16: (value) => value === "t", // bool
  21: Number, // int2
  23: Number, // int4
  114: (value) => JSON.parse(value), // json
  3802: (value) => JSON.parse(value), // jsonb
};
const asText = (value: string) => value;
const types = {
  getTypeParser: (oid: number) => PARSERS[oid] ?? asText,
} as unknown as NonNullable<PoolConfig["types"]>;

/** The pool plus the store's error policy. */
export class Db {
  readonly #pool: Pool;
  #closed = false;
  /** Calls of {@link Db.run} not answered yet: {@link Db.close} lets them finish. */
  readonly #running = new Set<Promise<unknown>>();

  constructor(config: PoolConfig) {
    this.#pool = new Pool({ ...config, types });
    // A connection that dies while idle in the pool (server restart, pg_terminate_backend)
    // emits "error"; unhandled, that would crash the process. The pool drops it by itself.
    this.#pool.on("error", () => {});
    // A checked-out connection can die between two statements of a transaction; the next
    // statement then rejects, which is where the error is reported.
    this.#pool.on("connect", (client) => {
      client.on("error", () => {});
    });
  }

  /** True once {@link Db.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Runs `fn` and maps its failure: herald errors unchanged, anything else (driver, network,
   * SQL) as {@link StoreUnavailableError} naming `operation`.
   */
  async run<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError(operation, new Error("store is closed"));
    const running = (async () => fn())();
    this.#running.add(running);
    try {
      return await running;
    } catch (error) {
      if (error instanceof HeraldError) throw error;
      throw new StoreUnavailableError(operation, error);
    } finally {
      this.#running.delete(running);
    }
  }

  /** Runs one statement on any pooled connection (autocommit). */
  query<R extends QueryResultRow = QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }> {
    return this.#pool.query<R>(text, values);
  }

  /**
   * Runs `fn` inside `BEGIN … COMMIT` on one connection. On any error the transaction is rolled
   * back (a connection that cannot even roll back is destroyed, never returned to the pool) and
   * the error rethrown. Resolves only after `COMMIT` succeeded, so a caller that got a result
   * knows the write is durable; a caller that got an error may retry with the same keys.
   */
  async tx<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch (rollbackError) {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Lets the calls made before it finish, then ends every connection. Later {@link Db.run} calls
   * throw {@link StoreUnavailableError}. (A pool that is ending serves no call still waiting for a
   * connection: ended at once, such a call would fail only after `connectionTimeoutMs`.)
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#running]);
    await this.#pool.end();
  }
}
