/**
 * The SQLite store's lease read: due, unleased intents first in their ordering key, oldest due
 * first (`MessageStateStore.leaseDueIntents`).
 *
 * It walks `intents_due` in (due_at, seq) order, one walk per status merged (`leaseSql`), but
 * at most {@link leaseScanCap} candidates: when the chats at the front of the queue all had a
 * message in flight, every candidate behind them failed the ordering-key check and the walk
 * went on to the end of the backlog, on each lease. A candidate is first in its key when no
 * intent of the key with a lower seq is unsent; within one walk a candidate with a higher seq
 * than one already seen of its key is blocked without asking again. When the capped walk did not give the limit, the rest comes
 * from the heads of the ordering keys — the oldest unsent intent of each key, one key at a time
 * through `intents_unsent_by_key` (`headsSql`, a loose index scan) — so the cost is the number
 * of keys with unsent intents, not the backlog. The same rule as the PostgreSQL store's lease
 * function (its migration 10).
 *
 * @module
 */
import { type IntentStatus, UNSENT_STATUSES } from "../../message/intent.ts";
import type { LeaseRequest } from "../types.ts";
import type { SqliteDb } from "./InboundTables.ts";
import type { Row } from "./rows.ts";

const UNSENT = UNSENT_STATUSES.map((s) => `'${s}'`).join(",");

/** Candidates one lease reads in due order before it turns to the heads (4 × limit, ≥ 64). */
export function leaseScanCap(limit: number): number {
  return Math.max(64, Math.min(limit, 1_000_000) * 4);
}

/**
 * The candidates in due order (`:cap` of them): one `SELECT` per status, merged on
 * `(due_at, seq)`: each walks `intents_due` in order (`MERGE (UNION ALL)` in the plan).
 * `status IN (…)` with several statuses instead scanned every row of the table, then sorted, on
 * each lease (1–4 ms per call with a few thousand rows; tested in `leaseQuery.test.ts`).
 */
export function leaseSql(statuses: readonly IntentStatus[]): string {
  const one = (status: IntentStatus) => `SELECT i.id, i.ordering_key, i.seq, i.due_at
     FROM intents i
     WHERE i.status = '${status}'
       AND (i.next_attempt_at IS NULL OR i.next_attempt_at <= :now)
       AND (i.lease_expires_at IS NULL OR i.lease_expires_at <= :now)
       AND (:channel IS NULL OR i.channel = :channel)`;
  return `${statuses.map(one).join(" UNION ALL ")} ORDER BY due_at, seq LIMIT CAST(:cap AS INTEGER)`;
}

/**
 * The oldest unsent intent of every ordering key, one key at a time (a loose index scan).
 * `INDEXED BY`: left to itself, the planner walked every unsent intent through `intents_due`
 * and sorted them, for each key.
 */
export const headsSql = `WITH RECURSIVE keys(k) AS (
    SELECT (SELECT ordering_key FROM intents INDEXED BY intents_unsent_by_key WHERE status IN (${UNSENT})
            ORDER BY ordering_key LIMIT 1)
    UNION ALL
    SELECT (SELECT ordering_key FROM intents INDEXED BY intents_unsent_by_key WHERE status IN (${UNSENT}) AND ordering_key > keys.k
            ORDER BY ordering_key LIMIT 1)
    FROM keys WHERE keys.k IS NOT NULL
  )
  SELECT (SELECT id FROM intents INDEXED BY intents_unsent_by_key WHERE ordering_key = keys.k AND status IN (${UNSENT})
          ORDER BY seq LIMIT 1) AS id
  FROM keys WHERE keys.k IS NOT NULL`;

const EARLIER_UNSENT = `SELECT 1 FROM intents e
  WHERE e.ordering_key = ? AND e.seq < ? AND e.status IN (${UNSENT}) LIMIT 1`;

const byDue = (a: Row, b: Row) =>
  (a.due_at as number) - (b.due_at as number) || (a.seq as number) - (b.seq as number);

/** Whether a row may be leased by `request` now (status, due, unleased, channel). */
function leasable(row: Row, request: LeaseRequest, statuses: readonly IntentStatus[]): boolean {
  const next = row.next_attempt_at as number | null;
  const expires = row.lease_expires_at as number | null;
  return (
    statuses.includes(row.status as IntentStatus) &&
    (next === null || next <= request.now) &&
    (expires === null || expires <= request.now) &&
    (request.channel === undefined || row.channel === request.channel)
  );
}

/**
 * The rows `request` leases, in due order (read only: the caller writes the leases, in the
 * same transaction).
 */
export function leaseRows(
  db: SqliteDb,
  request: LeaseRequest,
  statuses: readonly IntentStatus[],
): Row[] {
  const cap = leaseScanCap(request.limit);
  const candidates = db.stmt(leaseSql(statuses)).all({
    now: request.now,
    channel: request.channel ?? null,
    cap,
  }) as Row[];
  const earlier = db.stmt(EARLIER_UNSENT);
  const byId = db.stmt("SELECT * FROM intents WHERE id = ?");
  /** Per key, the lowest seq among the candidates seen (each of them unsent). */
  const lowest = new Map<string, number>();
  const picked: Row[] = [];
  for (const c of candidates) {
    if (picked.length >= request.limit) break;
    const key = String(c.ordering_key);
    const seq = c.seq as number;
    const low = lowest.get(key);
    // A candidate of the key with a lower seq was seen (unsent): blocked. (Due order is not seq
    // order: a retry due later may head its key.)
    if (low !== undefined && low < seq) continue;
    lowest.set(key, seq);
    if (earlier.get(key, seq) !== undefined) continue;
    picked.push(byId.get(String(c.id)) as Row);
  }
  if (picked.length >= request.limit || candidates.length < cap) return picked;
  const taken = new Set(picked.map((r) => String(r.id)));
  const heads = (db.stmt(headsSql).all() as Row[])
    .map((h) => (h.id === null ? undefined : (byId.get(String(h.id)) as Row | undefined)))
    .filter((r): r is Row => r !== undefined && !taken.has(String(r.id)))
    .filter((r) => leasable(r, request, statuses))
    .sort(byDue);
  return picked.concat(heads.slice(0, request.limit - picked.length)).sort(byDue);
}
