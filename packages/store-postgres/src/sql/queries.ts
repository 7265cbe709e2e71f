/**
 * Reads of intents and of the outbound registry. Single statements, no locks.
 *
 * @module
 */
import {
  type ChannelMessage,
  type DurableSendIntent,
  INTENT_STATUSES,
  type IntentQuery,
  type IntentStatus,
  type IntentStatusRow,
  type MessageReceipt,
  type ReceiptRecord,
  type RecoveryQuery,
} from "@herald/core";
import { compact, int, intentFromRow, type Row } from "../rows.ts";
import type { Ctx } from "./context.ts";

/** Reads one intent by a unique column. */
export async function getIntentBy(
  ctx: Ctx,
  column: "id" | "idempotency_key",
  value: string,
): Promise<DurableSendIntent | undefined> {
  const { rows } = await ctx.db.query<Row>(`SELECT * FROM ${ctx.t.intents} WHERE ${column} = $1`, [
    value,
  ]);
  return rows[0] ? intentFromRow(rows[0]) : undefined;
}

/** The status columns of the intents of `ids` that exist (`MessageStateStore.getIntentStatuses`). */
export async function getIntentStatuses(
  ctx: Ctx,
  ids: readonly string[],
): Promise<IntentStatusRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await ctx.db.query<Row>(
    `SELECT id, status, next_attempt_at, updated_at FROM ${ctx.t.intents} WHERE id = ANY($1::text[])`,
    [ids],
  );
  return rows.map(
    (r) =>
      compact({
        id: String(r.id),
        status: String(r.status) as IntentStatus,
        nextAttemptAt: r.next_attempt_at === null ? undefined : int(r.next_attempt_at),
        updatedAt: int(r.updated_at),
      }) as IntentStatusRow,
  );
}

/**
 * Lists intents by filter, in `seq` order (keyset pagination on `afterSeq`).
 *
 * With `updatedAfter` (a restart's rate-limit seed: the last seconds' writes) one branch per
 * status, its status a literal, merged and sorted: a terminal status walks the partial
 * `intents_terminal_updated` index from the bound instead of every such intent ever kept; the
 * others (`sending`, `committing`, `unknown_after_send`, few at any time) `intents_status_seq`.
 * No index on `updated_at` for every row: each lease and transition would update it.
 */
export async function listIntents(ctx: Ctx, query: IntentQuery): Promise<DurableSendIntent[]> {
  const values: unknown[] = [query.afterSeq ?? 0, query.limit ?? 100];
  const where = ["seq > $1"];
  const param = (value: unknown) => `$${values.push(value)}`;
  if (query.channel !== undefined) where.push(`channel = ${param(query.channel)}`);
  if (query.nextAttemptAfter !== undefined) {
    where.push(`next_attempt_at > ${param(query.nextAttemptAfter)}`);
  }
  if (query.leaseExpiredBefore !== undefined) {
    where.push(
      `(lease_expires_at IS NULL OR lease_expires_at <= ${param(query.leaseExpiredBefore)})`,
    );
  }
  let sql: string;
  if (query.updatedAfter !== undefined) {
    where.push(`updated_at > ${param(query.updatedAfter)}::bigint`);
    const statuses = query.statuses?.length ? [...new Set(query.statuses)] : INTENT_STATUSES;
    const branches = statuses.map((status) => {
      if (!INTENT_STATUSES.includes(status)) throw new TypeError(`unknown status ${status}`);
      return `SELECT * FROM ${ctx.t.intents} WHERE status = '${status}' AND ${where.join(" AND ")}`;
    });
    sql = `SELECT * FROM (${branches.join(" UNION ALL ")}) AS r ORDER BY seq LIMIT $2`;
  } else {
    if (query.statuses?.length) where.push(`status = ANY(${param(query.statuses)}::text[])`);
    sql = `SELECT * FROM ${ctx.t.intents} WHERE ${where.join(" AND ")} ORDER BY seq LIMIT $2`;
  }
  const { rows } = await ctx.db.query<Row>(sql, values);
  return rows.map(intentFromRow);
}

/**
 * One page of recovery candidates ([H25], `RecoveryQuery`): the leased unsent intents through
 * the partial `intents_leased` index, the skewed ones through `intents_due` from the bound, each
 * by a function of migration 11 planned to walk its index; neither walks the backlog.
 */
export async function listRecoveryCandidates(
  ctx: Ctx,
  query: RecoveryQuery,
): Promise<DurableSendIntent[]> {
  const { rows } =
    query.kind === "leased"
      ? await ctx.db.query<Row>(`SELECT * FROM ${ctx.t.recoveryLeasedFn}($1, $2)`, [
          query.afterSeq ?? 0,
          query.limit,
        ])
      : await ctx.db.query<Row>(`SELECT * FROM ${ctx.t.recoverySkewedFn}($1, $2)`, [
          query.dueAfter,
          query.limit,
        ]);
  return rows.map(intentFromRow);
}

/** Counts intents per status, every status present (zero when none). */
export async function countIntents(
  ctx: Ctx,
  filter: { channel?: string },
): Promise<Record<IntentStatus, number>> {
  const counts = Object.fromEntries(INTENT_STATUSES.map((s) => [s, 0])) as Record<
    IntentStatus,
    number
  >;
  const { rows } = await ctx.db.query<Row>(
    `SELECT status, count(*) AS n FROM ${ctx.t.intents}
     WHERE ($1::text IS NULL OR channel = $1) GROUP BY status`,
    [filter.channel ?? null],
  );
  for (const r of rows) counts[String(r.status) as IntentStatus] = int(r.n);
  return counts;
}

/** Finds the intent that produced a platform message id. */
export async function lookupReceipt(
  ctx: Ctx,
  key: { channel: string; accountId?: string; platformMessageId: string; anyAccount?: boolean },
): Promise<(ReceiptRecord & { receipt?: MessageReceipt }) | undefined> {
  const { rows } = key.anyAccount
    ? // Every account of the channel, one primary-key probe each (a loose index scan over
      // the distinct account ids: O(accounts · log n)).
      await ctx.db.query<Row>(
        `WITH RECURSIVE accounts(a) AS (
           SELECT MIN(account_id) FROM ${ctx.t.receipts} WHERE channel = $1
           UNION ALL
           SELECT (SELECT MIN(account_id) FROM ${ctx.t.receipts}
                   WHERE channel = $1 AND account_id > accounts.a)
           FROM accounts WHERE accounts.a IS NOT NULL)
         SELECT r.*, i.message, i.turn_id, i.receipt, i.partial_receipt
         FROM accounts JOIN ${ctx.t.receipts} AS r
           ON r.channel = $1 AND r.account_id = accounts.a AND r.platform_message_id = $2
         JOIN ${ctx.t.intents} AS i ON i.id = r.intent_id
         ORDER BY r.account_id LIMIT 1`,
        [key.channel, key.platformMessageId],
      )
    : await ctx.db.query<Row>(
        `SELECT r.*, i.message, i.turn_id, i.receipt, i.partial_receipt
     FROM ${ctx.t.receipts} AS r JOIN ${ctx.t.intents} AS i ON i.id = r.intent_id
     WHERE r.channel = $1 AND r.account_id = $2 AND r.platform_message_id = $3`,
        [key.channel, key.accountId ?? "", key.platformMessageId],
      );
  const row = rows[0];
  if (!row) return undefined;
  const message = row.message as ChannelMessage | null;
  return compact({
    channel: String(row.channel),
    accountId: row.account_id ? String(row.account_id) : undefined,
    platformMessageId: String(row.platform_message_id),
    intentId: String(row.intent_id),
    partIndex: int(row.part_index),
    origin: message?.origin,
    turnId: row.turn_id ? String(row.turn_id) : undefined,
    recordedAt: int(row.recorded_at),
    receipt: (row.receipt ?? row.partial_receipt ?? undefined) as MessageReceipt | undefined,
  }) as ReceiptRecord & { receipt?: MessageReceipt };
}
