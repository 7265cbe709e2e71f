/**
 * Fills a SQLite store file with many intents in one statement, for scale tests and `pnpm bench`
 * ([H25], C53: a 100k backlog in about a second, where 100k enqueues would take minutes). The
 * rows are what `enqueueIntents` writes (plus the status and lease asked for): a message
 * `m<i>` from `qa`/`bot-1` to chat `c<i % chats>`, its ordering key, `due_at`, a unique id and
 * idempotency key; `seq` continues the store's. Write through a second connection, with the
 * store open or closed (WAL); never use it on a store you test writes of at the same time.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { IntentStatus } from "../message/intent.ts";

/** What {@link bulkInsertSqliteIntents} writes. */
export type BulkIntents = {
  /** How many intents. */
  count: number;
  /** Chats (targets) they are spread over, round robin. @defaultValue 1_000 */
  chats?: number;
  /** Prefix of their ids and idempotency keys (unique per call). @defaultValue `"bulk"` */
  prefix?: string;
  /** @defaultValue `"pending"` */
  status?: IntentStatus;
  /** Lease owner (with `leaseExpiresAt`, epoch ms). @defaultValue none */
  leaseOwner?: string;
  leaseExpiresAt?: number;
  /** Epoch ms. @defaultValue none (due since creation) */
  nextAttemptAt?: number;
  /** Epoch ms of `createdAt` and `updatedAt`. @defaultValue `Date.now()` */
  createdAt?: number;
  /** `createdAt + maxAgeMs` is their `expiresAt`. @defaultValue none */
  maxAgeMs?: number;
};

/**
 * Inserts `spec.count` intents into the SQLite store file at `path` (its schema already
 * migrated: open a `SqliteStateStore` on it first) in one transaction.
 *
 * @returns the ids written, in `seq` order (`<prefix>-<i>`, i from 0).
 */
export function bulkInsertSqliteIntents(path: string, spec: BulkIntents): string[] {
  if (!(spec.count > 0)) return [];
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA busy_timeout = 30000");
    const prefix = spec.prefix ?? "bulk";
    const createdAt = spec.createdAt ?? Date.now();
    db.exec("BEGIN IMMEDIATE");
    db.prepare(
      `INSERT INTO intents (id, seq, idempotency_key, channel, account_id, ordering_key, status,
         attempt, next_attempt_at, due_at, lease_owner, lease_expires_at, message_json,
         operation_json, expires_at, created_at, updated_at)
       WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < :count),
         base(s) AS (SELECT COALESCE(MAX(seq), 0) FROM intents)
       SELECT :prefix || '-' || i, base.s + i + 1, 'bulk:' || :prefix || ':' || i, 'qa', 'bot-1',
         json_array('qa', 'bot-1', 'c' || (i % :chats), ''), :status, 0, :nextAt,
         COALESCE(:nextAt, :createdAt), :owner, :expires,
         json_object('id', :prefix || '-m' || i, 'channel', 'qa', 'accountId', 'bot-1',
           'direction', 'outbound', 'body', json_object('markdown', 'm' || i),
           'target', json_object('kind', 'group', 'id', 'c' || (i % :chats))),
         '{"kind":"send"}', :expiresAt, :createdAt, :createdAt
       FROM n, base`,
    ).run({
      count: spec.count,
      prefix,
      chats: spec.chats ?? 1_000,
      status: spec.status ?? "pending",
      nextAt: spec.nextAttemptAt ?? null,
      createdAt,
      owner: spec.leaseOwner ?? null,
      expires: spec.leaseExpiresAt ?? null,
      expiresAt: spec.maxAgeMs === undefined ? null : createdAt + spec.maxAgeMs,
    });
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  } finally {
    db.close();
  }
  return Array.from({ length: spec.count }, (_, i) => `${spec.prefix ?? "bulk"}-${i}`);
}
