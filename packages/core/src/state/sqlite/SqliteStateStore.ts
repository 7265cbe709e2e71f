/**
 * The embedded default state store on `node:sqlite` (DESIGN §3): WAL journal, durable commits
 * (`synchronous = FULL`) by default, forward migrations on open, and `BEGIN IMMEDIATE`
 * transactions so several processes may share one file safely.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { HeraldError } from "../../errors.ts";
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
import { IntentConflictError, SchemaTooNewError, StoreUnavailableError } from "../errors.ts";
import type { MessageStateStore } from "../MessageStateStore.ts";
import {
  DEDUPE_MIN_TTL_MS,
  type DeadLetter,
  type DedupeAcquireResult,
  type DedupeKey,
  type DedupeRecord,
  type EnqueueResult,
  type IntentPatch,
  type IntentQuery,
  type IntentTransition,
  type LeaseRequest,
  type LedgerEvent,
  type NewDeadLetter,
  type NewLedgerEvent,
  type NewSendIntent,
  type ReceiptRecord,
  type WatermarkKey,
} from "../types.ts";
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from "./migrations.ts";
import {
  compact,
  deadLetterFromRow,
  intentFromRow,
  json,
  ledgerFromRow,
  patchColumns,
  type Row,
  registryEntries,
  toJson,
} from "./rows.ts";

/** Options of {@link SqliteStateStore}. */
export type SqliteStateStoreOptions = {
  /** Database file path, or `":memory:"` for a private in-memory database. */
  path: string;
  /**
   * SQLite `synchronous` setting. `FULL` makes every commit durable across power loss; `NORMAL`
   * (with WAL) may lose the last commits on power loss but never corrupts, and is faster.
   * @defaultValue "FULL"
   */
  synchronous?: "FULL" | "NORMAL" | "EXTRA";
  /** How long a writer waits for another process's lock, in milliseconds. @defaultValue 5000 */
  busyTimeoutMs?: number;
  /** Clock for `createdAt` / `updatedAt`, epoch ms. @defaultValue Date.now */
  clock?: () => number;
  /** Stop migrating at this version (tests of the migration path only). */
  migrateTo?: number;
};

const UNSENT = UNSENT_STATUSES.map((s) => `'${s}'`).join(",");
const TERMINAL = TERMINAL_STATUSES.map((s) => `'${s}'`).join(",");

/**
 * {@link MessageStateStore} on SQLite.
 *
 * @example
 * const store = new SqliteStateStore({ path: ".herald/state.db" });
 * const [{ intent }] = await store.enqueueIntents([{ idempotencyKey: "reply:42", message }]);
 */
export class SqliteStateStore implements MessageStateStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #clock: () => number;
  readonly #statements = new Map<string, StatementSync>();
  #closed = false;

  /**
   * Opens (and creates or migrates) the database.
   *
   * @throws {@link SchemaTooNewError} when the file was written by a newer herald.
   * @throws {@link StoreUnavailableError} when the file cannot be opened.
   */
  constructor(options: SqliteStateStoreOptions) {
    this.path = options.path;
    this.#clock = options.clock ?? Date.now;
    try {
      this.#db = new DatabaseSync(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
      if (options.path !== ":memory:") this.#db.exec("PRAGMA journal_mode = WAL");
      this.#db.exec(`PRAGMA synchronous = ${options.synchronous ?? "FULL"}`);
      this.#db.exec("PRAGMA foreign_keys = ON");
    } catch (error) {
      throw new StoreUnavailableError(`open ${options.path}`, error);
    }
    this.#migrate(options.migrateTo ?? SQLITE_SCHEMA_VERSION);
  }

  #migrate(target: number): void {
    const current = this.#version();
    if (current > SQLITE_SCHEMA_VERSION)
      throw new SchemaTooNewError(current, SQLITE_SCHEMA_VERSION);
    for (const m of SQLITE_MIGRATIONS) {
      if (m.version <= this.#version() || m.version > target) continue;
      this.#tx(() => {
        // Re-check inside the write lock: another process may have migrated meanwhile.
        if (this.#version() >= m.version) return;
        this.#db.exec(m.sql);
        this.#db.exec(`PRAGMA user_version = ${m.version}`);
      });
    }
  }

  #version(): number {
    const row = this.#db.prepare("PRAGMA user_version").get() as { user_version: number };
    return row.user_version;
  }

  #stmt(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  #tx<T>(fn: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = fn();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  async #run<T>(operation: string, fn: () => T): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError(operation, new Error("store is closed"));
    try {
      return fn();
    } catch (error) {
      if (error instanceof HeraldError) throw error;
      throw new StoreUnavailableError(operation, error);
    }
  }

  #getIntentRow(id: string): Row | undefined {
    return this.#stmt("SELECT * FROM intents WHERE id = ?").get(id) as Row | undefined;
  }

  // ── send intents ──────────────────────────────────────────────────────────

  enqueueIntents(inputs: readonly NewSendIntent[]): Promise<EnqueueResult[]> {
    return this.#run("enqueueIntents", () =>
      this.#tx(() => {
        const now = this.#clock();
        let seq = Number(
          (this.#stmt("SELECT COALESCE(MAX(seq), 0) AS s FROM intents").get() as Row).s,
        );
        return inputs.map((input, i) => {
          if (i > 0) failpoint("store.mid_transaction");
          const existing = this.#stmt("SELECT * FROM intents WHERE idempotency_key = ?").get(
            input.idempotencyKey,
          ) as Row | undefined;
          if (existing) return { intent: intentFromRow(existing), created: false };
          seq += 1;
          const id = input.id ?? randomUUID();
          const nextAttemptAt = input.nextAttemptAt ?? null;
          this.#stmt(
            `INSERT INTO intents (id, seq, idempotency_key, channel, account_id, ordering_key, status,
               attempt, next_attempt_at, due_at, turn_id, message_json, operation_json, batch_json,
               live_state_json, created_at, updated_at)
             VALUES (:id, :seq, :key, :channel, :account, :ordering, 'pending', 0, :next, :due,
               :turn, :message, :operation, :batch, :live, :now, :now)`,
          ).run({
            id,
            seq,
            key: input.idempotencyKey,
            channel: input.message.channel,
            account: input.message.accountId ?? null,
            ordering: input.orderingKey ?? orderingKeyOf(input.message),
            next: nextAttemptAt,
            due: nextAttemptAt ?? now,
            turn: input.turnId ?? null,
            message: JSON.stringify(input.message),
            operation: JSON.stringify(input.operation ?? { kind: "send" }),
            batch: toJson(input.batch),
            live: toJson(input.liveState),
            now,
          });
          if (input.claim && (nextAttemptAt ?? 0) <= input.claim.now) this.#claim(id, input.claim);
          return { intent: intentFromRow(this.#getIntentRow(id) as Row), created: true };
        });
      }),
    );
  }

  #claim(id: string, claim: { owner: string; now: number; leaseMs: number }): void {
    this.#stmt(
      `UPDATE intents SET lease_owner = :owner, lease_expires_at = :expires
       WHERE id = :id AND NOT EXISTS (
         SELECT 1 FROM intents e WHERE e.ordering_key = intents.ordering_key
           AND e.seq < intents.seq AND e.status IN (${UNSENT}))`,
    ).run({ id, owner: claim.owner, expires: claim.now + claim.leaseMs });
  }

  getIntent(id: string): Promise<DurableSendIntent | undefined> {
    return this.#run("getIntent", () => {
      const row = this.#getIntentRow(id);
      return row ? intentFromRow(row) : undefined;
    });
  }

  getIntentByIdempotencyKey(key: string): Promise<DurableSendIntent | undefined> {
    return this.#run("getIntentByIdempotencyKey", () => {
      const row = this.#stmt("SELECT * FROM intents WHERE idempotency_key = ?").get(key) as
        | Row
        | undefined;
      return row ? intentFromRow(row) : undefined;
    });
  }

  leaseDueIntents(request: LeaseRequest): Promise<DurableSendIntent[]> {
    const statuses = request.statuses ?? ["pending"];
    return this.#run("leaseDueIntents", () =>
      this.#tx(() => {
        const rows = this.#stmt(
          `SELECT i.id FROM intents i
           WHERE i.status IN (${statuses.map((s) => `'${s}'`).join(",")})
             AND (i.next_attempt_at IS NULL OR i.next_attempt_at <= :now)
             AND (i.lease_expires_at IS NULL OR i.lease_expires_at <= :now)
             AND (:channel IS NULL OR i.channel = :channel)
             AND NOT EXISTS (
               SELECT 1 FROM intents e
               WHERE e.ordering_key = i.ordering_key AND e.seq < i.seq AND e.status IN (${UNSENT}))
           ORDER BY i.due_at, i.seq
           LIMIT :limit`,
        ).all({
          now: request.now,
          channel: request.channel ?? null,
          limit: request.limit,
        }) as Row[];
        const lease = this.#stmt(
          "UPDATE intents SET lease_owner = ?, lease_expires_at = ?, updated_at = ? WHERE id = ?",
        );
        return rows.map((r) => {
          lease.run(request.owner, request.now + request.leaseMs, this.#clock(), String(r.id));
          return intentFromRow(this.#getIntentRow(String(r.id)) as Row);
        });
      }),
    );
  }

  renewLease(id: string, owner: string, expiresAt: number): Promise<boolean> {
    return this.#run("renewLease", () => {
      const r = this.#stmt(
        "UPDATE intents SET lease_expires_at = ? WHERE id = ? AND lease_owner = ?",
      ).run(expiresAt, id, owner);
      return Number(r.changes) === 1;
    });
  }

  releaseLease(id: string, owner: string): Promise<boolean> {
    return this.#run("releaseLease", () => {
      const r = this.#stmt(
        "UPDATE intents SET lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND lease_owner = ?",
      ).run(this.#clock(), id, owner);
      return Number(r.changes) === 1;
    });
  }

  #guard(id: string, expect: { status: IntentStatus; owner?: string | undefined }): Row {
    const row = this.#getIntentRow(id);
    const actual = row
      ? compact({ status: String(row.status) as IntentStatus, owner: row.lease_owner ?? undefined })
      : undefined;
    if (
      !row ||
      row.status !== expect.status ||
      (expect.owner !== undefined && row.lease_owner !== expect.owner)
    ) {
      throw new IntentConflictError(
        id,
        compact({ status: expect.status, owner: expect.owner }) as { status: IntentStatus },
        actual as { status: IntentStatus; owner?: string } | undefined,
      );
    }
    return row;
  }

  #applyPatch(row: Row, status: IntentStatus, patch: IntentPatch): DurableSendIntent {
    const current = intentFromRow(row);
    const cols = patchColumns(patch, current);
    cols.status = status;
    cols.updated_at = this.#clock();
    const names = Object.keys(cols);
    this.#stmt(
      `UPDATE intents SET ${names.map((n) => `${n} = :${n}`).join(", ")} WHERE id = :id`,
    ).run({ ...cols, id: current.id });
    const updated = intentFromRow(this.#getIntentRow(current.id) as Row);
    if (patch.receipt || patch.partialReceipt) this.#index(updated);
    return updated;
  }

  #index(intent: DurableSendIntent): void {
    const insert = this.#stmt(
      `INSERT INTO receipts (channel, account_id, platform_message_id, intent_id, part_index, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    for (const e of registryEntries(intent)) {
      insert.run(
        intent.channel,
        intent.accountId ?? "",
        e.platformMessageId,
        intent.id,
        e.partIndex,
        this.#clock(),
      );
    }
  }

  transitionIntents(transitions: readonly IntentTransition[]): Promise<DurableSendIntent[]> {
    return this.#run("transitionIntents", () => {
      for (const t of transitions) assertTransition(t.from, t.to);
      return this.#tx(() =>
        transitions.map((t, i) => {
          if (i > 0) failpoint("store.mid_transaction");
          const row = this.#guard(t.id, { status: t.from, owner: t.owner });
          const patch: IntentPatch = { ...t.patch };
          if (TERMINAL_STATUSES.includes(t.to) && patch.lease === undefined)
            patch.lease = "release";
          return this.#applyPatch(row, t.to, patch);
        }),
      );
    });
  }

  updateIntent(
    id: string,
    expect: { status: IntentStatus; owner?: string },
    patch: IntentPatch,
  ): Promise<DurableSendIntent> {
    return this.#run("updateIntent", () =>
      this.#tx(() => this.#applyPatch(this.#guard(id, expect), expect.status, patch)),
    );
  }

  listIntents(query: IntentQuery = {}): Promise<DurableSendIntent[]> {
    return this.#run("listIntents", () => {
      const where: string[] = ["seq > :after"];
      const params: Record<string, string | number> = {
        after: query.afterSeq ?? 0,
        limit: query.limit ?? 100,
      };
      if (query.statuses?.length) {
        where.push(`status IN (${query.statuses.map((_, i) => `:s${i}`).join(",")})`);
        query.statuses.forEach((s, i) => {
          params[`s${i}`] = s;
        });
      }
      if (query.channel !== undefined) {
        where.push("channel = :channel");
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
      const rows = this.#db
        .prepare(`SELECT * FROM intents WHERE ${where.join(" AND ")} ORDER BY seq LIMIT :limit`)
        .all(params) as Row[];
      return rows.map(intentFromRow);
    });
  }

  countIntents(filter: { channel?: string } = {}): Promise<Record<IntentStatus, number>> {
    return this.#run("countIntents", () => {
      const counts = Object.fromEntries(INTENT_STATUSES.map((s) => [s, 0])) as Record<
        IntentStatus,
        number
      >;
      const rows = this.#stmt(
        "SELECT status, COUNT(*) AS n FROM intents WHERE (:channel IS NULL OR channel = :channel) GROUP BY status",
      ).all({ channel: filter.channel ?? null }) as Row[];
      for (const r of rows) counts[String(r.status) as IntentStatus] = Number(r.n);
      return counts;
    });
  }

  purgeTerminalIntents(options: { before: number; limit: number }): Promise<number> {
    return this.#run("purgeTerminalIntents", () =>
      this.#tx(() => {
        const r = this.#stmt(
          `DELETE FROM intents WHERE id IN (
             SELECT id FROM intents WHERE status IN (${TERMINAL}) AND updated_at < ?
             ORDER BY updated_at LIMIT ?)`,
        ).run(options.before, options.limit);
        return Number(r.changes);
      }),
    );
  }

  // ── outbound registry ─────────────────────────────────────────────────────

  lookupReceipt(key: {
    channel: string;
    accountId?: string;
    platformMessageId: string;
  }): Promise<(ReceiptRecord & { receipt?: MessageReceipt }) | undefined> {
    return this.#run("lookupReceipt", () => {
      const row = this.#stmt(
        `SELECT r.*, i.message_json, i.turn_id, i.receipt_json, i.partial_receipt_json
         FROM receipts r JOIN intents i ON i.id = r.intent_id
         WHERE r.channel = ? AND r.account_id = ? AND r.platform_message_id = ?`,
      ).get(key.channel, key.accountId ?? "", key.platformMessageId) as Row | undefined;
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
    });
  }

  // ── inbound dedupe ────────────────────────────────────────────────────────

  #dedupeRow(key: DedupeKey): Row | undefined {
    return this.#stmt(
      "SELECT * FROM dedupe WHERE channel = ? AND account_id = ? AND event_id = ?",
    ).get(key.channel, key.accountId ?? "", key.eventId) as Row | undefined;
  }

  acquireDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; leaseMs: number },
  ): Promise<DedupeAcquireResult> {
    return this.#run("acquireDedupe", () =>
      this.#tx((): DedupeAcquireResult => {
        const row = this.#dedupeRow(key);
        if (row?.status === "done" && Number(row.expires_at) > options.now) {
          return compact({ status: "done" as const, meta: json(row.meta_json) });
        }
        if (row?.status === "in_flight" && Number(row.lease_expires_at) > options.now) {
          return {
            status: "in_flight",
            owner: String(row.owner),
            leaseExpiresAt: Number(row.lease_expires_at),
          };
        }
        this.#stmt(
          `INSERT INTO dedupe (channel, account_id, event_id, status, owner, lease_expires_at, expires_at, meta_json)
           VALUES (?, ?, ?, 'in_flight', ?, ?, NULL, NULL)
           ON CONFLICT (channel, account_id, event_id) DO UPDATE SET
             status = 'in_flight', owner = excluded.owner,
             lease_expires_at = excluded.lease_expires_at, expires_at = NULL`,
        ).run(
          key.channel,
          key.accountId ?? "",
          key.eventId,
          options.owner,
          options.now + options.leaseMs,
        );
        return { status: "acquired" };
      }),
    );
  }

  renewDedupe(key: DedupeKey, owner: string, leaseExpiresAt: number): Promise<boolean> {
    return this.#run("renewDedupe", () => {
      const r = this.#stmt(
        `UPDATE dedupe SET lease_expires_at = ?
         WHERE channel = ? AND account_id = ? AND event_id = ? AND status = 'in_flight' AND owner = ?`,
      ).run(leaseExpiresAt, key.channel, key.accountId ?? "", key.eventId, owner);
      return Number(r.changes) === 1;
    });
  }

  completeDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; ttlMs?: number; meta?: unknown },
  ): Promise<boolean> {
    const ttlMs = Math.max(options.ttlMs ?? DEDUPE_MIN_TTL_MS, DEDUPE_MIN_TTL_MS);
    return this.#run("completeDedupe", () => {
      const r = this.#stmt(
        `UPDATE dedupe SET status = 'done', owner = NULL, lease_expires_at = NULL, expires_at = ?, meta_json = ?
         WHERE channel = ? AND account_id = ? AND event_id = ? AND status = 'in_flight' AND owner = ?`,
      ).run(
        options.now + ttlMs,
        toJson(options.meta),
        key.channel,
        key.accountId ?? "",
        key.eventId,
        options.owner,
      );
      return Number(r.changes) === 1;
    });
  }

  releaseDedupe(key: DedupeKey, owner: string): Promise<boolean> {
    return this.#run("releaseDedupe", () => {
      const r = this.#stmt(
        `DELETE FROM dedupe
         WHERE channel = ? AND account_id = ? AND event_id = ? AND status = 'in_flight' AND owner = ?`,
      ).run(key.channel, key.accountId ?? "", key.eventId, owner);
      return Number(r.changes) === 1;
    });
  }

  getDedupe(key: DedupeKey): Promise<DedupeRecord | undefined> {
    return this.#run("getDedupe", () => {
      const row = this.#dedupeRow(key);
      if (!row) return undefined;
      return compact({
        channel: key.channel,
        accountId: key.accountId,
        eventId: key.eventId,
        status: String(row.status) as DedupeRecord["status"],
        owner: row.owner ? String(row.owner) : undefined,
        leaseExpiresAt: row.lease_expires_at == null ? undefined : Number(row.lease_expires_at),
        expiresAt: row.expires_at == null ? undefined : Number(row.expires_at),
        meta: json(row.meta_json),
      }) as DedupeRecord;
    });
  }

  purgeDedupe(options: { now: number; limit: number }): Promise<number> {
    return this.#run("purgeDedupe", () => {
      const r = this.#stmt(
        `DELETE FROM dedupe WHERE rowid IN (
           SELECT rowid FROM dedupe WHERE status = 'done' AND expires_at <= ? LIMIT ?)`,
      ).run(options.now, options.limit);
      return Number(r.changes);
    });
  }

  // ── watermarks ────────────────────────────────────────────────────────────

  getWatermark(key: WatermarkKey): Promise<string | undefined> {
    return this.#run("getWatermark", () => {
      const row = this.#stmt(
        "SELECT value FROM watermarks WHERE channel = ? AND account_id = ? AND source = ?",
      ).get(key.channel, key.accountId ?? "", key.source ?? "") as Row | undefined;
      return row ? String(row.value) : undefined;
    });
  }

  setWatermark(key: WatermarkKey, value: string): Promise<void> {
    return this.#run("setWatermark", () => {
      this.#stmt(
        `INSERT INTO watermarks (channel, account_id, source, value, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (channel, account_id, source) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ).run(key.channel, key.accountId ?? "", key.source ?? "", value, this.#clock());
    });
  }

  // ── ledger ────────────────────────────────────────────────────────────────

  appendLedger(events: readonly NewLedgerEvent[]): Promise<LedgerEvent[]> {
    return this.#run("appendLedger", () =>
      this.#tx(() =>
        events.map((e) => {
          const last = this.#stmt(
            "SELECT COALESCE(MAX(seq), 0) AS s FROM ledger WHERE conversation = ?",
          ).get(e.conversation) as Row;
          const event: LedgerEvent = compact({
            conversation: e.conversation,
            seq: Number(last.s) + 1,
            type: e.type,
            turnId: e.turnId,
            at: e.at ?? this.#clock(),
            data: e.data,
          }) as LedgerEvent;
          this.#stmt(
            "INSERT INTO ledger (conversation, seq, type, turn_id, at, data_json) VALUES (?, ?, ?, ?, ?, ?)",
          ).run(
            event.conversation,
            event.seq,
            event.type,
            event.turnId ?? null,
            event.at,
            toJson(event.data),
          );
          return event;
        }),
      ),
    );
  }

  readLedger(query: {
    conversation: string;
    fromSeq?: number;
    toSeq?: number;
    limit?: number;
  }): Promise<LedgerEvent[]> {
    return this.#run("readLedger", () => {
      const rows = this.#stmt(
        `SELECT * FROM ledger WHERE conversation = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?`,
      ).all(
        query.conversation,
        query.fromSeq ?? 1,
        query.toSeq ?? Number.MAX_SAFE_INTEGER,
        query.limit ?? 10_000,
      ) as Row[];
      return rows.map(ledgerFromRow);
    });
  }

  // ── dead letters ──────────────────────────────────────────────────────────

  putDeadLetter(letter: NewDeadLetter): Promise<DeadLetter> {
    return this.#run("putDeadLetter", () => {
      const id = letter.id ?? randomUUID();
      this.#stmt(
        `INSERT INTO dead_letters (id, channel, account_id, raw_json, error_json, status, received_at)
         VALUES (?, ?, ?, ?, ?, 'new', ?)`,
      ).run(
        id,
        letter.channel,
        letter.accountId ?? null,
        JSON.stringify(letter.raw ?? null),
        JSON.stringify(letter.error),
        letter.receivedAt,
      );
      return deadLetterFromRow(
        this.#stmt("SELECT * FROM dead_letters WHERE id = ?").get(id) as Row,
      );
    });
  }

  getDeadLetter(id: string): Promise<DeadLetter | undefined> {
    return this.#run("getDeadLetter", () => {
      const row = this.#stmt("SELECT * FROM dead_letters WHERE id = ?").get(id) as Row | undefined;
      return row ? deadLetterFromRow(row) : undefined;
    });
  }

  listDeadLetters(
    query: { channel?: string; status?: DeadLetter["status"]; limit?: number } = {},
  ): Promise<DeadLetter[]> {
    return this.#run("listDeadLetters", () => {
      const rows = this.#stmt(
        `SELECT * FROM dead_letters WHERE (:channel IS NULL OR channel = :channel)
           AND (:status IS NULL OR status = :status) ORDER BY received_at, id LIMIT :limit`,
      ).all({
        channel: query.channel ?? null,
        status: query.status ?? null,
        limit: query.limit ?? 100,
      }) as Row[];
      return rows.map(deadLetterFromRow);
    });
  }

  markDeadLetter(id: string, status: "replayed" | "discarded", now: number): Promise<void> {
    return this.#run("markDeadLetter", () => {
      this.#stmt(
        `UPDATE dead_letters SET status = ?, replayed_at = ?,
           replay_count = replay_count + (CASE WHEN ? = 'replayed' THEN 1 ELSE 0 END) WHERE id = ?`,
      ).run(status, now, status, id);
    });
  }

  // ── lifecycle ─────────────────────────────────────────────────────────────

  schemaVersion(): Promise<number> {
    return this.#run("schemaVersion", () => this.#version());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.#db.close();
  }
}
