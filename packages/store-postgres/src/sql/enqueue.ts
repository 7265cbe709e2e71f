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
 * @module
 */
import { randomUUID } from "node:crypto";
import {
  type EnqueueResult,
  failpoint,
  type NewSendIntent,
  orderingKeyOf,
  UNSENT_STATUSES,
} from "@herald/core";
import type { PoolClient } from "pg";
import { intentFromRow, type Row, toJson } from "../rows.ts";
import { lockKeys, type Tables } from "../schema.ts";
import type { Ctx } from "./context.ts";

const UNSENT = UNSENT_STATUSES.map((s) => `'${s}'`).join(", ");
/** Takes the per-key advisory locks of a batch, deadlock-free (sorted, deduplicated). */
async function lockKeysOf(
  client: PoolClient,
  t: Tables,
  orderingKeys: string[],
  idempotencyKeys: string[],
): Promise<void> {
  await client.query(
    `SELECT count(pg_advisory_xact_lock(k.space, k.hash)) FROM (
       SELECT DISTINCT space, hash FROM (
         SELECT ${lockKeys.orderingSpace(t.schema)} AS space, hashtext(o) AS hash FROM unnest($1::text[]) AS o
         UNION ALL
         SELECT ${lockKeys.idempotencySpace(t.schema)}, hashtext(i) FROM unnest($2::text[]) AS i
       ) AS keys ORDER BY space, hash
     ) AS k`,
    [orderingKeys, idempotencyKeys],
  );
}

/**
 * Enqueues intents in one transaction; an existing idempotency key returns the stored intent
 * with `created: false`. Calls the `store.mid_transaction` failpoint between items.
 */
export async function enqueueIntents(
  ctx: Ctx,
  inputs: readonly NewSendIntent[],
): Promise<EnqueueResult[]> {
  if (inputs.length === 0) return [];
  const { t } = ctx;
  const orderingKeys = inputs.map((input) => input.orderingKey ?? orderingKeyOf(input.message));
  return ctx.db.tx(async (client) => {
    await lockKeysOf(
      client,
      t,
      orderingKeys,
      inputs.map((input) => input.idempotencyKey),
    );
    const now = ctx.clock();
    const results: EnqueueResult[] = [];
    for (const [i, input] of inputs.entries()) {
      if (i > 0) failpoint("store.mid_transaction");
      const inserted = await client.query<Row>(
        `INSERT INTO ${t.intents} (id, idempotency_key, channel, account_id, ordering_key, status,
           attempt, next_attempt_at, due_at, turn_id, message, operation, batch, live_state,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7, $8,
           $9, $10, $11, $12, $13, $13)
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING *`,
        [
          input.id ?? randomUUID(),
          input.idempotencyKey,
          input.message.channel,
          input.message.accountId ?? null,
          orderingKeys[i],
          input.nextAttemptAt ?? null,
          input.nextAttemptAt ?? now,
          input.turnId ?? null,
          JSON.stringify(input.message),
          JSON.stringify(input.operation ?? { kind: "send" }),
          toJson(input.batch),
          toJson(input.liveState),
          now,
        ],
      );
      let row = inserted.rows[0];
      if (row) {
        const claim = input.claim;
        if (claim && (input.nextAttemptAt ?? 0) <= claim.now) {
          // Lease it at once when no earlier unsent intent shares its ordering key (the ordering
          // key's advisory lock is held, so no earlier intent can commit meanwhile).
          const claimed = await client.query<Row>(
            `UPDATE ${t.intents} AS u SET lease_owner = $2, lease_expires_at = $3
             WHERE u.id = $1 AND NOT EXISTS (
               SELECT 1 FROM ${t.intents} AS e WHERE e.ordering_key = u.ordering_key
                 AND e.seq < u.seq AND e.status IN (${UNSENT}))
             RETURNING *`,
            [row.id, claim.owner, claim.now + claim.leaseMs],
          );
          row = claimed.rows[0] ?? row;
        }
        results.push({ intent: intentFromRow(row), created: true });
        continue;
      }
      const existing = await client.query<Row>(
        `SELECT * FROM ${t.intents} WHERE idempotency_key = $1`,
        [input.idempotencyKey],
      );
      const found = existing.rows[0];
      if (!found) throw new Error(`idempotency key ${input.idempotencyKey} vanished mid-enqueue`);
      results.push({ intent: intentFromRow(found), created: false });
    }
    return results;
  });
}
