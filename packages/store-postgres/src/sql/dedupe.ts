/**
 * Inbound dedupe leases on `(channel, account, event id)`.
 *
 * Acquiring is one `INSERT … ON CONFLICT … DO UPDATE … WHERE <free>`: the unique key makes
 * concurrent acquirers on any number of connections queue on the same row, and only one of them
 * finds it free. `ON CONFLICT DO UPDATE` locks the conflicting row even when its `WHERE` is false,
 * so the loser's follow-up read in the same transaction sees exactly the record that beat it.
 *
 * @module
 */
import {
  DEDUPE_MIN_TTL_MS,
  type DedupeAcquireResult,
  type DedupeKey,
  type DedupeRecord,
} from "@herald/core";
import { compact, dedupeFromRow, int, type Row, toJson } from "../rows.ts";
import type { Ctx } from "./context.ts";

const KEY = "channel = $1 AND account_id = $2 AND event_id = $3";
const keyValues = (key: DedupeKey) => [key.channel, key.accountId ?? "", key.eventId];

/** Takes the processing lease of an inbound event (see {@link MessageStateStore.acquireDedupe}). */
export async function acquireDedupe(
  ctx: Ctx,
  key: DedupeKey,
  options: { owner: string; now: number; leaseMs: number },
): Promise<DedupeAcquireResult> {
  const d = ctx.t.dedupe;
  return ctx.db.tx(async (client) => {
    const taken = await client.query(
      `INSERT INTO ${d} AS d (channel, account_id, event_id, status, owner, lease_expires_at)
       VALUES ($1, $2, $3, 'in_flight', $4, $5)
       ON CONFLICT (channel, account_id, event_id) DO UPDATE SET
         status = 'in_flight', owner = EXCLUDED.owner, lease_expires_at = EXCLUDED.lease_expires_at,
         expires_at = NULL, meta = NULL
       WHERE NOT (
         (d.status = 'done' AND COALESCE(d.expires_at, 0) > $6) OR
         (d.status = 'in_flight' AND COALESCE(d.lease_expires_at, 0) > $6))
       RETURNING 1`,
      [...keyValues(key), options.owner, options.now + options.leaseMs, options.now],
    );
    if (taken.rowCount === 1) return { status: "acquired" as const };
    const { rows } = await client.query<Row>(`SELECT * FROM ${d} WHERE ${KEY}`, keyValues(key));
    const row = rows[0];
    if (!row) throw new Error("dedupe record vanished while locked");
    if (row.status === "done")
      return compact({ status: "done" as const, meta: row.meta ?? undefined });
    return {
      status: "in_flight" as const,
      owner: String(row.owner),
      leaseExpiresAt: int(row.lease_expires_at),
    };
  });
}

/** Extends an in-flight lease. @returns false when `owner` no longer holds it. */
export async function renewDedupe(
  ctx: Ctx,
  key: DedupeKey,
  owner: string,
  leaseExpiresAt: number,
): Promise<boolean> {
  const r = await ctx.db.query(
    `UPDATE ${ctx.t.dedupe} SET lease_expires_at = $4
     WHERE ${KEY} AND status = 'in_flight' AND owner = $5`,
    [...keyValues(key), leaseExpiresAt, owner],
  );
  return r.rowCount === 1;
}

/** Marks the event processed, kept for `ttlMs` (at least 24 h). */
export async function completeDedupe(
  ctx: Ctx,
  key: DedupeKey,
  options: { owner: string; now: number; ttlMs?: number; meta?: unknown },
): Promise<boolean> {
  const ttlMs = Math.max(options.ttlMs ?? DEDUPE_MIN_TTL_MS, DEDUPE_MIN_TTL_MS);
  const r = await ctx.db.query(
    `UPDATE ${ctx.t.dedupe}
     SET status = 'done', owner = NULL, lease_expires_at = NULL, expires_at = $4, meta = $5
     WHERE ${KEY} AND status = 'in_flight' AND owner = $6`,
    [...keyValues(key), options.now + ttlMs, toJson(options.meta), options.owner],
  );
  return r.rowCount === 1;
}

/** Releases an in-flight lease after a failure so a redelivery is processed. */
export async function releaseDedupe(ctx: Ctx, key: DedupeKey, owner: string): Promise<boolean> {
  const r = await ctx.db.query(
    `DELETE FROM ${ctx.t.dedupe} WHERE ${KEY} AND status = 'in_flight' AND owner = $4`,
    [...keyValues(key), owner],
  );
  return r.rowCount === 1;
}

/** Reads a dedupe record. */
export async function getDedupe(ctx: Ctx, key: DedupeKey): Promise<DedupeRecord | undefined> {
  const { rows } = await ctx.db.query<Row>(
    `SELECT * FROM ${ctx.t.dedupe} WHERE ${KEY}`,
    keyValues(key),
  );
  return rows[0] ? dedupeFromRow(key, rows[0]) : undefined;
}

/** Deletes up to `limit` `done` records past their TTL. @returns how many. */
export async function purgeDedupe(
  ctx: Ctx,
  options: { now: number; limit: number },
): Promise<number> {
  const d = ctx.t.dedupe;
  const r = await ctx.db.query(
    `DELETE FROM ${d} WHERE (channel, account_id, event_id) IN (
       SELECT channel, account_id, event_id FROM ${d}
       WHERE status = 'done' AND expires_at <= $1
       LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [options.now, options.limit],
  );
  return r.rowCount ?? 0;
}
