/**
 * Send intents and the outbound receipt registry of the SQLite store, as synchronous
 * operations over one connection: enqueue (with claim), lease, compare-and-set transitions
 * that index receipts in the same transaction, queries and tombstone purge. `SqliteStateStore`
 * wraps each in its error mapping; see `MessageStateStore` for the contracts.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { failpoint } from "../../failpoint.ts";
import {
  assertTransition,
  type DurableSendIntent,
  INTENT_STATUSES,
  type IntentStatus,
  orderingKeyOf,
  TERMINAL_STATUSES,
  UNSENT_STATUSES,
} from "../../message/intent.ts";
import type { MessageReceipt } from "../../message/receipt.ts";
import { IntentConflictError, ReceiptConflictError } from "../errors.ts";
import { patchColumns, registryClaims } from "../storeHelpers.ts";
import type {
  EnqueueResult,
  IntentPatch,
  IntentQuery,
  IntentStatusRow,
  IntentTransition,
  LeaseRequest,
  NewSendIntent,
  ReceiptRecord,
  RecoveryQuery,
} from "../types.ts";
import type { SqliteDb } from "./InboundTables.ts";
import { leaseRows } from "./leaseQuery.ts";
import { compact, intentFromRow, json, type Row, toJson } from "./rows.ts";

const SQLITE_JSON_COLUMNS = {
  failure: "failure_json",
  receipt: "receipt_json",
  partialReceipt: "partial_receipt_json",
  liveState: "live_state_json",
  batch: "batch_json",
  firstDispatchAt: "first_dispatch_json",
};
const UNSENT = UNSENT_STATUSES.map((s) => `'${s}'`).join(",");
const TERMINAL = TERMINAL_STATUSES.map((s) => `'${s}'`).join(",");

/**
 * The list query of `listIntents` and its parameters.
 *
 * With `updatedAfter` (a restart's rate-limit seed: the last seconds' writes) one `SELECT` per
 * status, its status a literal, merged on `seq`: a terminal status walks the partial
 * `intents_terminal_updated` index from the bound (the planner would rather walk
 * `intents_status_seq` through every such intent ever kept), the others (`sending`,
 * `committing`, `unknown_after_send`: few at any time) `intents_status_seq`. No index on
 * `updated_at` for every row: each lease and transition would update it. Plans are checked in
 * `leaseQuery.test.ts`.
 */
export function listSql(query: IntentQuery): {
  sql: string;
  params: Record<string, string | number>;
} {
  const where: string[] = ["seq > :after"];
  const params: Record<string, string | number> = {
    after: query.afterSeq ?? 0,
    limit: query.limit ?? 100,
  };
  if (query.channel !== undefined) {
    where.push("channel = CAST(:channel AS TEXT)");
    params.channel = query.channel;
  }
  if (query.nextAttemptAfter !== undefined) {
    where.push("next_attempt_at > :nextAfter");
    params.nextAfter = query.nextAttemptAfter;
  }
  if (query.leaseExpiredBefore !== undefined) {
    where.push("(lease_expires_at IS NULL OR lease_expires_at <= :expired)");
    params.expired = query.leaseExpiredBefore;
  }
  const limit = "ORDER BY seq LIMIT CAST(:limit AS INTEGER)";
  if (query.updatedAfter !== undefined) {
    where.push("updated_at > :updatedAfter");
    params.updatedAfter = query.updatedAfter;
    const rest = where.join(" AND ");
    const statuses = query.statuses?.length ? [...new Set(query.statuses)] : INTENT_STATUSES;
    const one = (status: IntentStatus) => {
      if (!INTENT_STATUSES.includes(status)) throw new TypeError(`unknown status ${status}`);
      // `+status`: not an index term, so the terminal index (whose predicate the IN repeats)
      // is the only one left.
      return TERMINAL_STATUSES.includes(status)
        ? `SELECT * FROM intents INDEXED BY intents_terminal_updated
           WHERE status IN (${TERMINAL}) AND +status = '${status}' AND ${rest}`
        : `SELECT * FROM intents WHERE status = '${status}' AND ${rest}`;
    };
    return { sql: `SELECT * FROM (${statuses.map(one).join(" UNION ALL ")}) ${limit}`, params };
  }
  if (query.statuses?.length) {
    where.push(`status IN (${query.statuses.map((_, i) => `:s${i}`).join(",")})`);
    query.statuses.forEach((s, i) => {
      params[`s${i}`] = s;
    });
  }
  return { sql: `SELECT * FROM intents WHERE ${where.join(" AND ")} ${limit}`, params };
}

/**
 * Recovery's reads ([H25], `RecoveryQuery`): the leased unsent intents through the partial
 * `intents_leased` index (its predicate repeated word for word, so that the planner may use
 * it), the skewed ones through `intents_due` from the bound. Neither walks the backlog.
 */
const LEASED_SQL = `SELECT * FROM intents INDEXED BY intents_leased
  WHERE lease_owner IS NOT NULL AND status IN ('pending','unknown_after_send') AND seq > ?
  ORDER BY seq LIMIT CAST(? AS INTEGER)`;
const SKEWED_SQL = `SELECT * FROM intents INDEXED BY intents_due
  WHERE status = 'pending' AND due_at > ? ORDER BY due_at, seq LIMIT CAST(? AS INTEGER)`;

/** A row read or written in the current transaction, and its mapping. */
type Written = { row: Row; intent: DurableSendIntent };

/**
 * A row as the guard read it: mapped only when this transaction wrote it (a row read to be
 * patched is mapped once, after the patch: its JSON columns are parsed once, not twice).
 */
type Read = { row: Row; intent?: DurableSendIntent | undefined };

/** Intent and registry operations. */
export class IntentTables {
  readonly #db: SqliteDb;

  constructor(db: SqliteDb) {
    this.#db = db;
  }

  #getIntentRow(id: string): Row | undefined {
    return this.#db.stmt("SELECT * FROM intents WHERE id = ?").get(id) as Row | undefined;
  }

  enqueueIntents(inputs: readonly NewSendIntent[]): EnqueueResult[] {
    return this.#db.tx(() => {
      const now = this.#db.clock();
      let seq = Number(
        (this.#db.stmt("SELECT COALESCE(MAX(seq), 0) AS s FROM intents").get() as Row).s,
      );
      return inputs.map((input, i) => {
        if (i > 0) failpoint("store.mid_transaction");
        const existing = this.#db
          .stmt("SELECT * FROM intents WHERE idempotency_key = ?")
          .get(input.idempotencyKey) as Row | undefined;
        if (existing) return { intent: intentFromRow(existing), created: false };
        seq += 1;
        const nextAttemptAt = input.nextAttemptAt ?? null;
        // The row as inserted: the table has no triggers or defaults the insert leaves out, so
        // the result is built from it instead of read back (conformance: "is the row stored").
        const row: Row = {
          id: input.id ?? randomUUID(),
          seq,
          idempotency_key: input.idempotencyKey,
          channel: input.message.channel,
          account_id: input.message.accountId ?? null,
          ordering_key: input.orderingKey ?? orderingKeyOf(input.message),
          status: "pending",
          attempt: 0,
          next_attempt_at: nextAttemptAt,
          due_at: nextAttemptAt ?? now,
          lease_owner: null,
          lease_expires_at: null,
          turn_id: input.turnId ?? null,
          message_json: JSON.stringify(input.message),
          operation_json: JSON.stringify(input.operation ?? { kind: "send" }),
          batch_json: toJson(input.batch),
          live_state_json: toJson(input.liveState),
          receipt_json: null,
          partial_receipt_json: null,
          failure_json: null,
          first_dispatch_json: null,
          expires_at: input.maxAgeMs === undefined ? null : now + input.maxAgeMs,
          created_at: now,
          updated_at: now,
        };
        this.#db
          .stmt(
            `INSERT INTO intents (id, seq, idempotency_key, channel, account_id, ordering_key, status,
             attempt, next_attempt_at, due_at, turn_id, message_json, operation_json, batch_json,
             live_state_json, expires_at, created_at, updated_at)
           VALUES (:id, :seq, :idempotency_key, :channel, :account_id, :ordering_key, 'pending', 0,
             :next_attempt_at, :due_at, :turn_id, :message_json, :operation_json, :batch_json,
             :live_state_json, :expires_at, :created_at, :updated_at)`,
          )
          .run({
            id: row.id as string,
            seq,
            idempotency_key: row.idempotency_key as string,
            channel: row.channel as string,
            account_id: row.account_id as string | null,
            ordering_key: row.ordering_key as string,
            next_attempt_at: nextAttemptAt,
            due_at: row.due_at as number,
            turn_id: row.turn_id as string | null,
            message_json: row.message_json as string,
            operation_json: row.operation_json as string,
            batch_json: row.batch_json as string | null,
            live_state_json: row.live_state_json as string | null,
            expires_at: row.expires_at as number | null,
            created_at: now,
            updated_at: now,
          });
        const claim = input.claim;
        if (claim && (nextAttemptAt ?? 0) <= claim.now && this.#claim(String(row.id), claim)) {
          row.lease_owner = claim.owner;
          row.lease_expires_at = claim.now + claim.leaseMs;
        }
        // Crash tests arm it to die with the row written but not committed.
        failpoint("store.enqueue");
        return { intent: intentFromRow(row), created: true };
      });
    });
  }

  /** Leases a just-inserted intent to `claim.owner` unless it waits behind one. @returns leased. */
  #claim(id: string, claim: { owner: string; now: number; leaseMs: number }): boolean {
    const r = this.#db
      .stmt(
        `UPDATE intents SET lease_owner = :owner, lease_expires_at = :expires
       WHERE id = :id AND NOT EXISTS (
         SELECT 1 FROM intents e WHERE e.ordering_key = intents.ordering_key
           AND e.seq < intents.seq AND e.status IN (${UNSENT}))`,
      )
      .run({ id, owner: claim.owner, expires: claim.now + claim.leaseMs });
    return Number(r.changes) === 1;
  }

  getIntent(id: string): DurableSendIntent | undefined {
    const row = this.#getIntentRow(id);
    return row ? intentFromRow(row) : undefined;
  }

  getIntentStatuses(ids: readonly string[]): IntentStatusRow[] {
    const rows = this.#db
      .stmt(
        `SELECT id, status, next_attempt_at, updated_at FROM intents
         WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids)) as Row[];
    return rows.map(
      (r) =>
        compact({
          id: String(r.id),
          status: String(r.status) as IntentStatus,
          nextAttemptAt: r.next_attempt_at === null ? undefined : Number(r.next_attempt_at),
          updatedAt: Number(r.updated_at),
        }) as IntentStatusRow,
    );
  }

  getIntentByIdempotencyKey(key: string): DurableSendIntent | undefined {
    const row = this.#db.stmt("SELECT * FROM intents WHERE idempotency_key = ?").get(key) as
      | Row
      | undefined;
    return row ? intentFromRow(row) : undefined;
  }

  leaseDueIntents(request: LeaseRequest): DurableSendIntent[] {
    const statuses = request.statuses ?? ["pending"];
    if (statuses.length === 0) return [];
    return this.#db.tx(() => {
      const rows = leaseRows(this.#db, request, statuses);
      const lease = this.#db.stmt(
        "UPDATE intents SET lease_owner = ?, lease_expires_at = ?, updated_at = ? WHERE id = ?",
      );
      return rows.map((r) => {
        // The row as written (see #applyPatch): not read back. `r` was read for this lease
        // alone, so it is updated in place.
        r.lease_owner = request.owner;
        r.lease_expires_at = request.now + request.leaseMs;
        r.updated_at = this.#db.clock();
        lease.run(r.lease_owner, r.lease_expires_at, r.updated_at, String(r.id));
        return intentFromRow(r);
      });
    });
  }

  renewLease(id: string, owner: string, expiresAt: number): boolean {
    const r = this.#db
      .stmt("UPDATE intents SET lease_expires_at = ? WHERE id = ? AND lease_owner = ?")
      .run(expiresAt, id, owner);
    return Number(r.changes) === 1;
  }

  releaseLease(id: string, owner: string): boolean {
    const r = this.#db
      .stmt(
        "UPDATE intents SET lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND lease_owner = ?",
      )
      .run(this.#db.clock(), id, owner);
    return Number(r.changes) === 1;
  }

  /**
   * Reads the row and checks it is as `expect`s.
   * @param written - the row as this transaction last wrote it (no second read).
   */
  #guard(
    id: string,
    expect: { status: IntentStatus; owner?: string | undefined },
    written?: Written,
  ): Read {
    const row = written?.row ?? this.#getIntentRow(id);
    if (
      !row ||
      row.status !== expect.status ||
      (expect.owner !== undefined && row.lease_owner !== expect.owner)
    ) {
      const actual = row
        ? compact({
            status: String(row.status) as IntentStatus,
            owner: row.lease_owner ?? undefined,
          })
        : undefined;
      throw new IntentConflictError(
        id,
        compact({ status: expect.status, owner: expect.owner }) as { status: IntentStatus },
        actual as { status: IntentStatus; owner?: string } | undefined,
      );
    }
    return written ?? { row };
  }

  /**
   * Writes `patch` and `status` to a row read in this transaction. The row as written is that
   * row with the columns set (the table has no triggers and STRICT columns store what they are
   * given), so it is not read back; JSON columns left as they were are not parsed again.
   */
  #applyPatch(read: Read, status: IntentStatus, patch: IntentPatch): Written {
    const next = this.#patched(read, status, patch);
    this.#update(next.intent.id, next.cols);
    if (patch.receipt || patch.partialReceipt) this.#index(next.intent, patch);
    return next;
  }

  /** `read` with `patch` and `status` applied, in memory: the row, and the columns changed. */
  #patched(
    read: Read,
    status: IntentStatus,
    patch: IntentPatch,
  ): Written & { cols: Record<string, string | number | null> } {
    const cols = patchColumns(
      patch,
      { createdAt: Number(read.row.created_at) },
      SQLITE_JSON_COLUMNS,
    );
    // A column the patch sets to what the row holds is left out of the UPDATE: fewer values to
    // bind, and an index on it is not rewritten (the row is the same either way).
    for (const name in cols) if (cols[name] === read.row[name]) delete cols[name];
    cols.status = status;
    cols.updated_at = this.#db.clock();
    if (!read.intent) {
      // A row read for this write alone (not mapped, not kept): updated in place.
      const row = Object.assign(read.row, cols);
      return { row, intent: intentFromRow(row), cols };
    }
    // A row this transaction wrote before: its mapping compares against it, so it is copied.
    const row: Row = { ...read.row, ...cols };
    return { row, intent: intentFromRow(row, { row: read.row, intent: read.intent }), cols };
  }

  #update(id: string, cols: Record<string, string | number | null>): void {
    const names = Object.keys(cols);
    this.#db
      .stmt(`UPDATE intents SET ${names.map((n) => `${n} = ?`).join(", ")} WHERE id = ?`)
      .run(...names.map((n) => cols[n] as string | number | null), id);
  }

  /**
   * Indexes the platform ids of the receipts `patch` writes to `intent` (as patched) in the
   * outbound registry. An id another intent already holds is refused unless it is shared (an
   * edit's or delete's target, an adopted preview: `registryClaims`); the same intent indexing
   * its own id again changes nothing.
   *
   * @throws ReceiptConflictError — the transaction then writes nothing.
   */
  #index(intent: DurableSendIntent, patch: IntentPatch): void {
    const claims = registryClaims(intent, patch);
    if (claims.length === 0) return;
    const account = intent.accountId ?? "";
    const held = this.#db.stmt(
      `SELECT intent_id, part_index FROM receipts WHERE channel = CAST(? AS TEXT)
       AND account_id = CAST(? AS TEXT) AND platform_message_id = CAST(? AS TEXT)`,
    );
    const insert = this.#db.stmt(
      `INSERT INTO receipts (channel, account_id, platform_message_id, intent_id, part_index, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    for (const c of claims) {
      if (!c.shared) {
        const row = held.get(intent.channel, account, c.platformMessageId) as Row | undefined;
        if (row && String(row.intent_id) !== intent.id) {
          throw new ReceiptConflictError({
            intentId: intent.id,
            channel: intent.channel,
            accountId: intent.accountId,
            platformMessageId: c.platformMessageId,
            partIndex: c.partIndex,
            heldByIntentId: String(row.intent_id),
            heldByPartIndex: Number(row.part_index),
          });
        }
      }
      insert.run(
        intent.channel,
        account,
        c.platformMessageId,
        intent.id,
        c.partIndex,
        this.#db.clock(),
      );
    }
  }

  transitionIntents(transitions: readonly IntentTransition[]): DurableSendIntent[] {
    for (const t of transitions) assertTransition(t.from, t.to);
    return this.#db.tx(() => {
      // Rows this call wrote (`committing` then `sent` of one intent): read once.
      const written = new Map<string, Written>();
      // Columns of consecutive transitions of one intent not written yet: `committing` then
      // `sent` is one UPDATE of the final row, not two (the same row either way: no triggers).
      let unwritten: { id: string; cols: Record<string, string | number | null> } | undefined;
      const flush = () => {
        if (unwritten) this.#update(unwritten.id, unwritten.cols);
        unwritten = undefined;
      };
      const out = transitions.map((t, i) => {
        if (i > 0) failpoint("store.mid_transaction");
        if (unwritten && unwritten.id !== t.id) flush();
        const read = this.#guard(t.id, { status: t.from, owner: t.owner }, written.get(t.id));
        const patch: IntentPatch = { ...t.patch };
        if (TERMINAL_STATUSES.includes(t.to) && patch.lease === undefined) patch.lease = "release";
        const next = this.#patched(read, t.to, patch);
        unwritten = { id: t.id, cols: { ...unwritten?.cols, ...next.cols } };
        if (patch.receipt || patch.partialReceipt) this.#index(next.intent, patch);
        written.set(t.id, next);
        return next.intent;
      });
      flush();
      return out;
    });
  }

  updateIntent(
    id: string,
    expect: { status: IntentStatus; owner?: string },
    patch: IntentPatch,
  ): DurableSendIntent {
    return this.#db.tx(
      () => this.#applyPatch(this.#guard(id, expect), expect.status, patch).intent,
    );
  }

  listIntents(query: IntentQuery = {}): DurableSendIntent[] {
    const { sql, params } = listSql(query);
    const rows = this.#db.prepare(sql).all(params) as Row[];
    return rows.map((row) => intentFromRow(row));
  }

  listRecoveryCandidates(query: RecoveryQuery): DurableSendIntent[] {
    const rows =
      query.kind === "leased"
        ? this.#db.stmt(LEASED_SQL).all(query.afterSeq ?? 0, query.limit)
        : this.#db.stmt(SKEWED_SQL).all(query.dueAfter, query.limit);
    return (rows as Row[]).map((row) => intentFromRow(row));
  }

  countIntents(filter: { channel?: string } = {}): Record<IntentStatus, number> {
    const counts = Object.fromEntries(INTENT_STATUSES.map((s) => [s, 0])) as Record<
      IntentStatus,
      number
    >;
    const rows = this.#db
      .stmt(
        "SELECT status, COUNT(*) AS n FROM intents WHERE (:channel IS NULL OR channel = :channel) GROUP BY status",
      )
      .all({ channel: filter.channel ?? null }) as Row[];
    for (const r of rows) counts[String(r.status) as IntentStatus] = Number(r.n);
    return counts;
  }

  purgeTerminalIntents(options: { before: number; limit: number }): number {
    return this.#db.tx(() => {
      const r = this.#db
        .stmt(
          `DELETE FROM intents WHERE id IN (
           SELECT id FROM intents WHERE status IN (${TERMINAL}) AND updated_at < ?
           ORDER BY updated_at LIMIT CAST(? AS INTEGER))`,
        )
        .run(options.before, options.limit);
      return Number(r.changes);
    });
  }

  lookupReceipt(key: {
    channel: string;
    accountId?: string;
    platformMessageId: string;
    anyAccount?: boolean;
  }): (ReceiptRecord & { receipt?: MessageReceipt }) | undefined {
    const row = (
      key.anyAccount
        ? // Every account of the channel, one primary-key probe each: the recursive CTE walks
          // the distinct account ids in the index (a loose index scan, O(accounts · log n)).
          this.#db
            .stmt(
              `WITH RECURSIVE accounts(a) AS (
                 SELECT MIN(account_id) FROM receipts WHERE channel = CAST(?1 AS TEXT)
                 UNION ALL
                 SELECT (SELECT MIN(account_id) FROM receipts
                         WHERE channel = CAST(?1 AS TEXT) AND account_id > accounts.a)
                 FROM accounts WHERE accounts.a IS NOT NULL)
               SELECT r.*, i.message_json, i.turn_id, i.receipt_json, i.partial_receipt_json
               FROM accounts JOIN receipts r
                 ON r.channel = CAST(?1 AS TEXT) AND r.account_id = accounts.a
                AND r.platform_message_id = CAST(?2 AS TEXT)
               JOIN intents i ON i.id = r.intent_id
               ORDER BY r.account_id LIMIT 1`,
            )
            .get(key.channel, key.platformMessageId)
        : this.#db
            .stmt(
              `SELECT r.*, i.message_json, i.turn_id, i.receipt_json, i.partial_receipt_json
       FROM receipts r JOIN intents i ON i.id = r.intent_id
       WHERE r.channel = CAST(? AS TEXT) AND r.account_id = CAST(? AS TEXT)
         AND r.platform_message_id = CAST(? AS TEXT)`,
            )
            .get(key.channel, key.accountId ?? "", key.platformMessageId)
    ) as Row | undefined;
    if (!row) return undefined;
    const message = json<DurableSendIntent["message"]>(row.message_json);
    return compact({
      channel: String(row.channel),
      accountId: row.account_id ? String(row.account_id) : undefined,
      platformMessageId: String(row.platform_message_id),
      intentId: String(row.intent_id),
      partIndex: Number(row.part_index),
      origin: message?.origin,
      turnId: row.turn_id ? String(row.turn_id) : undefined,
      recordedAt: Number(row.recorded_at),
      receipt:
        json<MessageReceipt>(row.receipt_json) ?? json<MessageReceipt>(row.partial_receipt_json),
    }) as ReceiptRecord & { receipt?: MessageReceipt };
  }
}
