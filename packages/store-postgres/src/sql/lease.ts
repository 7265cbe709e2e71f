/**
 * Leasing due intents, renewing and releasing leases.
 *
 * One statement claims up to `limit` intents: a `FOR UPDATE OF i SKIP LOCKED` scan in due order
 * picks candidates and an `UPDATE … FROM` writes the lease, so concurrent leasers on other
 * connections skip each other's rows instead of waiting, and never get the same row (a row
 * another leaser committed meanwhile is re-checked and fails the lease-expiry condition). The
 * statement lives in the function `lease_due_intents` (migration 6), planned with sorts and
 * bitmap scans off: it walks `intents_due` in order and stops at `limit` even when the table's
 * statistics are stale (`leasePlan.test.ts`).
 *
 * Due: an intent without `nextAttemptAt` is due at any `now` ("absent = due now"), so a worker
 * whose clock runs a few milliseconds behind the enqueuing process does not wait for it; one
 * with `nextAttemptAt` is due once `now` reaches it. Candidates are taken in `due_at` order (the
 * time it became due: `nextAttemptAt`, else creation), then `seq`.
 *
 * Ordering-key FIFO: a candidate qualifies only when no intent with the same key and a lower
 * `seq` is in an unsent status (pending — leased or not —, sending, committing,
 * unknown_after_send). That test reads the statement's snapshot, not row locks, so an earlier
 * intent that another transaction holds locked is still seen (in its committed status) and still
 * blocks; it stops blocking only once a terminal status has committed. The remaining hazard —
 * an earlier-seq intent that commits after a later one — is closed at enqueue time (see
 * `enqueue.ts`).
 *
 * @module
 */
import type { DurableSendIntent, LeaseRequest } from "@herald/core";
import { byDueThenSeq, intentFromRow, type Row } from "../rows.ts";
import type { Ctx } from "./context.ts";

const LEASABLE = new Set(["pending", "unknown_after_send"]);

/**
 * Checks the statuses of a lease request (they are spliced into SQL).
 *
 * @throws TypeError for a status other than `pending` or `unknown_after_send`.
 */
export function assertLeasable(statuses: readonly string[] | undefined): void {
  for (const s of statuses ?? []) {
    if (!LEASABLE.has(s)) throw new TypeError(`cannot lease intents in status ${String(s)}`);
  }
}

/** Leases due intents (see {@link MessageStateStore.leaseDueIntents}); statuses checked first. */
export async function leaseDueIntents(
  ctx: Ctx,
  request: LeaseRequest,
): Promise<DurableSendIntent[]> {
  const statuses = request.statuses ?? ["pending"];
  assertLeasable(statuses);
  if (statuses.length === 0 || request.limit <= 0) return [];
  // One statement: the function of migration 6 (the lease planned to walk `intents_due`).
  const { rows } = await ctx.db.query<Row>(
    `SELECT * FROM ${ctx.t.leaseFn}($1::text[], $2, $3, $4, $5, $6, $7)`,
    [
      [...statuses],
      request.now,
      request.channel ?? null,
      // The function's limit is an `integer`; more rows than that are not leased at once.
      Math.min(request.limit, 2_147_483_647),
      request.owner,
      request.now + request.leaseMs,
      ctx.clock(),
    ],
  );
  return byDueThenSeq(rows).map(intentFromRow);
}

/** Extends a lease held by `owner`. @returns false when the lease was lost. */
export async function renewLease(
  ctx: Ctx,
  id: string,
  owner: string,
  expiresAt: number,
): Promise<boolean> {
  const r = await ctx.db.query(
    `UPDATE ${ctx.t.intents} SET lease_expires_at = $1 WHERE id = $2 AND lease_owner = $3`,
    [expiresAt, id, owner],
  );
  return r.rowCount === 1;
}

/** Gives a lease back. @returns false when `owner` did not hold it. */
export async function releaseLease(ctx: Ctx, id: string, owner: string): Promise<boolean> {
  const r = await ctx.db.query(
    `UPDATE ${ctx.t.intents} SET lease_owner = NULL, lease_expires_at = NULL, updated_at = $1
     WHERE id = $2 AND lease_owner = $3`,
    [ctx.clock(), id, owner],
  );
  return r.rowCount === 1;
}
