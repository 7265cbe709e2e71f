/**
 * Enqueueing send intents.
 *
 * `seq` comes from an identity sequence, and sequence values are handed out in call order, not
 * commit order: without care, process A could draw seq 10, process B seq 11 for the same
 * ordering key, B commit first and get leased and sent, and A's earlier seq show up afterwards.
 * So an enqueue first takes a transaction-scoped advisory lock per ordering key (and per
 * idempotency key, which makes concurrent batches sharing keys wait instead of deadlocking on
 * the unique index), always in sorted order. Within one ordering key, seq order is then commit
 * order, and a leaser's snapshot can never miss an earlier intent that commits later.
 *
 * All of it is one statement (the `enqueue_intents` function, migration 5) in autocommit: one
 * round trip and one commit, where `BEGIN`, the locks, one `INSERT` per intent and `COMMIT`
 * took four or more. The enqueues a process makes in the same tick, or while its previous
 * enqueue statement is in flight, share that statement (see `batcher.ts`): in input order, so
 * their seq order is call order; each call resolves only after the statement committed.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { type EnqueueResult, failpoint, type NewSendIntent, orderingKeyOf } from "@herald/core";
import { intentFromRow, type Row, toJson } from "../rows.ts";
import type { Ctx } from "./context.ts";

/** One intent ready for the statement: every column as the function takes it. */
export type EnqueueRow = {
  id: string;
  key: string;
  channel: string;
  account: string | null;
  orderingKey: string;
  nextAt: number | null;
  due: number | null;
  turn: string | null;
  message: string;
  operation: string;
  batch: string | null;
  live: string | null;
  claimOwner: string | null;
  claimExpires: number | null;
  /** `maxAgeMs` of the intent (its `expires_at` is the statement's `now` plus it). */
  maxAgeMs: number | null;
};

/**
 * Turns one `enqueueIntents` call into rows (serializing each message once, in the caller's
 * tick). Calls the `store.mid_transaction` failpoint between items: before the statement, so a
 * crash there leaves nothing of the batch.
 */
export function enqueueRows(inputs: readonly NewSendIntent[]): EnqueueRow[] {
  return inputs.map((input, i) => {
    if (i > 0) failpoint("store.mid_transaction");
    const claim = input.claim;
    const claims = claim !== undefined && (input.nextAttemptAt ?? 0) <= claim.now;
    return {
      id: input.id ?? randomUUID(),
      key: input.idempotencyKey,
      channel: input.message.channel,
      account: input.message.accountId ?? null,
      orderingKey: input.orderingKey ?? orderingKeyOf(input.message),
      nextAt: input.nextAttemptAt ?? null,
      due: input.nextAttemptAt ?? null,
      turn: input.turnId ?? null,
      message: JSON.stringify(input.message),
      operation: JSON.stringify(input.operation ?? { kind: "send" }),
      batch: toJson(input.batch),
      live: toJson(input.liveState),
      claimOwner: claims ? claim.owner : null,
      claimExpires: claims ? claim.now + claim.leaseMs : null,
      maxAgeMs: input.maxAgeMs ?? null,
    };
  });
}

/**
 * Enqueues the rows of several calls in one statement (one transaction); an existing
 * idempotency key returns the stored intent with `created: false` (also when an earlier row of
 * the same statement inserted it).
 *
 * @returns per call, its results in input order.
 */
export async function enqueueCalls(
  ctx: Ctx,
  calls: readonly (readonly EnqueueRow[])[],
): Promise<EnqueueResult[][]> {
  const rows = calls.flat();
  if (rows.length === 0) return calls.map(() => []);
  const now = ctx.clock();
  const col = <K extends keyof EnqueueRow>(k: K) => rows.map((r) => r[k]);
  // Only an enqueue with a `maxAgeMs` takes the function that also sets `expires_at`.
  const expiring = rows.some((r) => r.maxAgeMs !== null);
  const { rows: out } = await ctx.db.query<Row>(
    `SELECT f.r_idx, f.r_created, (f.r_row).* FROM ${expiring ? ctx.t.enqueueExpiringFn : ctx.t.enqueueFn}(
       $1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
       $8::text[], $9::json[], $10::json[], $11::json[], $12::json[], $13::text[], $14::bigint[],
       $15::bigint${expiring ? ", $16::bigint[]" : ""}) AS f`,
    [
      col("id"),
      col("key"),
      col("channel"),
      col("account"),
      col("orderingKey"),
      col("nextAt"),
      rows.map((r) => r.due ?? now),
      col("turn"),
      col("message"),
      col("operation"),
      col("batch"),
      col("live"),
      col("claimOwner"),
      col("claimExpires"),
      now,
      ...(expiring ? [rows.map((r) => (r.maxAgeMs === null ? null : now + r.maxAgeMs))] : []),
    ],
  );
  const results: EnqueueResult[] = new Array(rows.length);
  for (const row of out) {
    const { r_idx, r_created, ...intent } = row;
    results[Number(r_idx) - 1] = { intent: intentFromRow(intent), created: r_created === true };
  }
  let at = 0;
  return calls.map((call) => {
    const mine = results.slice(at, at + call.length);
    at += call.length;
    if (mine.length !== call.length || mine.some((r) => r === undefined))
      throw new Error("enqueue statement returned fewer rows than it was given");
    return mine;
  });
}
