/**
 * The PostgreSQL schema (namespace) that holds one herald store: name validation, qualified
 * table names, and the advisory-lock namespaces derived from it.
 *
 * @module
 */

/** A schema name herald accepts: lower-case letters, digits and `_`, at most 63 bytes. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The default schema of a store. */
export const DEFAULT_SCHEMA = "herald";

/** Qualified names of every table of one store, ready to splice into SQL. */
export type Tables = {
  /** The schema name as given (unquoted), e.g. `herald`. */
  readonly schema: string;
  readonly migrations: string;
  readonly intents: string;
  readonly receipts: string;
  readonly dedupe: string;
  readonly watermarks: string;
  readonly ledger: string;
  readonly ledgerHeads: string;
  readonly deadLetters: string;
  /** Token slots of shared rate-limit buckets. */
  readonly rateSlots: string;
  /** Loop-guard counts per pair. */
  readonly loopPairs: string;
  /** The function that takes the tokens of many calls in one statement (migration 4). */
  readonly takeTokensFn: string;
  /**
   * The function that settles answered tokens and takes new ones, ahead of when they free, in
   * one statement (migration 9).
   */
  readonly settleTakeFn: string;
  /** The function that enqueues a batch of intents in one statement (migration 5). */
  readonly enqueueFn: string;
  /** The function that leases due intents, planned to walk `intents_due` in order (migration 6). */
  readonly leaseFn: string;
  /**
   * `enqueueFn` that also sets `expires_at` of the intents it creates, in the same statement
   * (migration 11); only enqueues that carry a `maxAgeMs` use it.
   */
  readonly enqueueExpiringFn: string;
  /** Recovery's read of the leased unsent intents, planned to walk `intents_leased` (migration 11). */
  readonly recoveryLeasedFn: string;
  /** Recovery's read of the skewed intents, planned to walk `intents_due` (migration 11). */
  readonly recoverySkewedFn: string;
};

/**
 * Validates a schema name and returns the qualified table names inside it.
 *
 * Names are restricted to `[a-z_][a-z0-9_]*` (at most 63 bytes) so they never need escaping
 * and never change case; anything else is rejected rather than silently quoted.
 *
 * @throws TypeError when `schema` is not a plain lower-case identifier.
 */
export function tablesOf(schema: string): Tables {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `invalid PostgreSQL schema name ${JSON.stringify(schema)}: use lower-case letters, digits and _ (at most 63), starting with a letter or _`,
    );
  }
  const q = (table: string) => `"${schema}"."${table}"`;
  return {
    schema,
    migrations: q("schema_migrations"),
    intents: q("intents"),
    receipts: q("receipts"),
    dedupe: q("dedupe"),
    watermarks: q("watermarks"),
    ledger: q("ledger"),
    ledgerHeads: q("ledger_heads"),
    deadLetters: q("dead_letters"),
    rateSlots: q("rate_limit_slots"),
    loopPairs: q("loop_guard_pairs"),
    takeTokensFn: q("take_tokens"),
    settleTakeFn: q("settle_and_take_tokens"),
    enqueueFn: q("enqueue_intents"),
    leaseFn: q("lease_due_intents"),
    enqueueExpiringFn: q("enqueue_expiring_intents"),
    recoveryLeasedFn: q("recovery_leased_intents"),
    recoverySkewedFn: q("recovery_skewed_intents"),
  };
}

/**
 * Advisory-lock keys. PostgreSQL keeps single-`bigint` keys and `(int4, int4)` pairs in separate
 * spaces, so the migration lock (a `bigint`) never collides with a per-key lock (a pair whose
 * first half names the schema and the kind of key).
 */
export const lockKeys = {
  /** `pg_advisory_xact_lock(<this>)` serializes migrations of one schema across processes. */
  migrate: (schema: string) => `hashtext('herald:migrate:' || '${schema}')::bigint`,
  /** First half of the pair lock of an ordering key. */
  orderingSpace: (schema: string) => `hashtext('herald:ordering:' || '${schema}')`,
  /** First half of the pair lock of an idempotency key. */
  idempotencySpace: (schema: string) => `hashtext('herald:idempotency:' || '${schema}')`,
} as const;
