/**
 * The inbound-side tables of the SQLite store — dedupe leases, polling watermarks, the turn
 * ledger and dead letters — as synchronous operations over one connection. `SqliteStateStore`
 * wraps each in its error mapping; see `MessageStateStore` for the contracts.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { StatementSync } from "node:sqlite";
import {
  DEDUPE_MIN_TTL_MS,
  type DeadLetter,
  type DedupeAcquireResult,
  type DedupeKey,
  type DedupeRecord,
  type LedgerEvent,
  type NewDeadLetter,
  type NewLedgerEvent,
  type WatermarkKey,
} from "../types.ts";
import { compact, deadLetterFromRow, json, ledgerFromRow, type Row, toJson } from "./rows.ts";

/** The connection primitives the table operations need. */
export type SqliteDb = {
  /** A cached prepared statement. */
  stmt(sql: string): StatementSync;
  /** An uncached prepared statement (dynamic SQL). */
  prepare(sql: string): StatementSync;
  /** Runs `fn` in a `BEGIN IMMEDIATE` transaction. */
  tx<T>(fn: () => T): T;
  /** Epoch ms. */
  clock(): number;
};

/** Dedupe, watermark, ledger and dead-letter operations. */
export class InboundTables {
  readonly #db: SqliteDb;

  constructor(db: SqliteDb) {
    this.#db = db;
  }

  #dedupeRow(key: DedupeKey): Row | undefined {
    return this.#db
      .stmt("SELECT * FROM dedupe WHERE channel = ? AND account_id = ? AND event_id = ?")
      .get(key.channel, key.accountId ?? "", key.eventId) as Row | undefined;
  }

  acquireDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; leaseMs: number },
  ): DedupeAcquireResult {
    return this.#db.tx((): DedupeAcquireResult => {
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
      this.#db
        .stmt(
          `INSERT INTO dedupe (channel, account_id, event_id, status, owner, lease_expires_at, expires_at, meta_json)
         VALUES (?, ?, ?, 'in_flight', ?, ?, NULL, NULL)
         ON CONFLICT (channel, account_id, event_id) DO UPDATE SET
           status = 'in_flight', owner = excluded.owner,
           lease_expires_at = excluded.lease_expires_at, expires_at = NULL`,
        )
        .run(
          key.channel,
          key.accountId ?? "",
          key.eventId,
          options.owner,
          options.now + options.leaseMs,
        );
      return { status: "acquired" };
    });
  }

  renewDedupe(key: DedupeKey, owner: string, leaseExpiresAt: number): boolean {
    const r = this.#db
      .stmt(
        `UPDATE dedupe SET lease_expires_at = ?
       WHERE channel = ? AND account_id = ? AND event_id = ? AND status = 'in_flight' AND owner = ?`,
      )
      .run(leaseExpiresAt, key.channel, key.accountId ?? "", key.eventId, owner);
    return Number(r.changes) === 1;
  }

  completeDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; ttlMs?: number; meta?: unknown },
  ): boolean {
    const ttlMs = Math.max(options.ttlMs ?? DEDUPE_MIN_TTL_MS, DEDUPE_MIN_TTL_MS);
    const r = this.#db
      .stmt(
        `UPDATE dedupe SET status = 'done', owner = NULL, lease_expires_at = NULL, expires_at = ?, meta_json = ?
       WHERE channel = ? AND account_id = ? AND event_id = ? AND status = 'in_flight' AND owner = ?`,
      )
      .run(
        options.now + ttlMs,
        toJson(options.meta),
        key.channel,
        key.accountId ?? "",
        key.eventId,
        options.owner,
      );
    return Number(r.changes) === 1;
  }

  releaseDedupe(key: DedupeKey, owner: string): boolean {
    const r = this.#db
      .stmt(
        `DELETE FROM dedupe
       WHERE channel = ? AND account_id = ? AND event_id = ? AND status = 'in_flight' AND owner = ?`,
      )
      .run(key.channel, key.accountId ?? "", key.eventId, owner);
    return Number(r.changes) === 1;
  }

  getDedupe(key: DedupeKey): DedupeRecord | undefined {
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
  }

  purgeDedupe(options: { now: number; limit: number }): number {
    const r = this.#db
      .stmt(
        `DELETE FROM dedupe WHERE rowid IN (
         SELECT rowid FROM dedupe WHERE status = 'done' AND expires_at <= ? LIMIT CAST(? AS INTEGER))`,
      )
      .run(options.now, options.limit);
    return Number(r.changes);
  }

  getWatermark(key: WatermarkKey): string | undefined {
    const row = this.#db
      .stmt("SELECT value FROM watermarks WHERE channel = ? AND account_id = ? AND source = ?")
      .get(key.channel, key.accountId ?? "", key.source ?? "") as Row | undefined;
    return row ? String(row.value) : undefined;
  }

  setWatermark(key: WatermarkKey, value: string): void {
    this.#db
      .stmt(
        `INSERT INTO watermarks (channel, account_id, source, value, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (channel, account_id, source) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(key.channel, key.accountId ?? "", key.source ?? "", value, this.#db.clock());
  }

  appendLedger(events: readonly NewLedgerEvent[]): LedgerEvent[] {
    return this.#db.tx(() =>
      events.map((e) => {
        const last = this.#db
          .stmt(
            "SELECT COALESCE(MAX(seq), 0) AS s FROM ledger WHERE conversation = CAST(? AS TEXT)",
          )
          .get(e.conversation) as Row;
        const event: LedgerEvent = compact({
          conversation: e.conversation,
          seq: Number(last.s) + 1,
          type: e.type,
          turnId: e.turnId,
          at: e.at ?? this.#db.clock(),
          data: e.data,
        }) as LedgerEvent;
        this.#db
          .stmt(
            "INSERT INTO ledger (conversation, seq, type, turn_id, at, data_json) VALUES (?, ?, ?, ?, ?, ?)",
          )
          .run(
            event.conversation,
            event.seq,
            event.type,
            event.turnId ?? null,
            event.at,
            toJson(event.data),
          );
        return event;
      }),
    );
  }

  readLedger(query: {
    conversation: string;
    fromSeq?: number;
    toSeq?: number;
    limit?: number;
  }): LedgerEvent[] {
    const rows = this.#db
      .stmt(
        `SELECT * FROM ledger WHERE conversation = CAST(? AS TEXT) AND seq >= ? AND seq <= ? ORDER BY seq LIMIT CAST(? AS INTEGER)`,
      )
      .all(
        query.conversation,
        query.fromSeq ?? 1,
        query.toSeq ?? Number.MAX_SAFE_INTEGER,
        query.limit ?? 10_000,
      ) as Row[];
    return rows.map(ledgerFromRow);
  }

  putDeadLetter(letter: NewDeadLetter): DeadLetter {
    const id = letter.id ?? randomUUID();
    this.#db
      .stmt(
        `INSERT INTO dead_letters (id, channel, account_id, raw_json, error_json, status, received_at)
       VALUES (?, ?, ?, ?, ?, 'new', ?)`,
      )
      .run(
        id,
        letter.channel,
        letter.accountId ?? null,
        JSON.stringify(letter.raw ?? null),
        JSON.stringify(letter.error),
        letter.receivedAt,
      );
    return deadLetterFromRow(
      this.#db.stmt("SELECT * FROM dead_letters WHERE id = ?").get(id) as Row,
    );
  }

  getDeadLetter(id: string): DeadLetter | undefined {
    const row = this.#db.stmt("SELECT * FROM dead_letters WHERE id = ?").get(id) as Row | undefined;
    return row ? deadLetterFromRow(row) : undefined;
  }

  listDeadLetters(
    query: { channel?: string; status?: DeadLetter["status"]; limit?: number } = {},
  ): DeadLetter[] {
    const rows = this.#db
      .stmt(
        `SELECT * FROM dead_letters WHERE (:channel IS NULL OR channel = :channel)
         AND (:status IS NULL OR status = :status) ORDER BY received_at, id LIMIT CAST(:limit AS INTEGER)`,
      )
      .all({
        channel: query.channel ?? null,
        status: query.status ?? null,
        limit: query.limit ?? 100,
      }) as Row[];
    return rows.map(deadLetterFromRow);
  }

  markDeadLetter(id: string, status: "replayed" | "discarded", now: number): void {
    this.#db
      .stmt(
        `UPDATE dead_letters SET status = ?, replayed_at = ?,
         replay_count = replay_count + (CASE WHEN ? = 'replayed' THEN 1 ELSE 0 END) WHERE id = ?`,
      )
      .run(status, now, status, id);
  }
}
