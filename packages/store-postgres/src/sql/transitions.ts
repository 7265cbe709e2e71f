/**
 * Compare-and-set writes to intents: status transitions, guarded patches, tombstone purge, and
 * the outbound registry rows they index in the same transaction.
 *
 * A transition batch first locks every row it names with `SELECT … ORDER BY id FOR UPDATE`, so
 * two batches touching the same intents queue up in one order instead of deadlocking, and each
 * guard then reads a row nobody else can change before the commit.
 *
 * @module
 */
import {
  assertTransition,
  type DurableSendIntent,
  failpoint,
  IntentConflictError,
  type IntentPatch,
  type IntentStatus,
  type IntentTransition,
  patchColumns,
  registryEntries,
  TERMINAL_STATUSES,
} from "@herald/core";
import type { PoolClient } from "pg";
import { compact, intentFromRow, type Row } from "../rows.ts";
import type { Ctx } from "./context.ts";

type Expect = { status: IntentStatus; owner?: string | undefined };

/** This schema's JSON column names (see `migrations.ts`). */
const PG_JSON_COLUMNS = {
  failure: "failure",
  receipt: "receipt",
  partialReceipt: "partial_receipt",
  liveState: "live_state",
  batch: "batch",
  firstDispatchAt: "first_dispatch",
};
/** Locks and reads intents by id, in id order. */
async function lockIntents(
  client: PoolClient,
  ctx: Ctx,
  ids: readonly string[],
): Promise<Map<string, DurableSendIntent>> {
  const { rows } = await client.query<Row>(
    `SELECT * FROM ${ctx.t.intents} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => [String(r.id), intentFromRow(r)]));
}

/** @throws IntentConflictError when `current` is missing, in another status or leased by another. */
function guard(id: string, current: DurableSendIntent | undefined, expect: Expect) {
  if (
    current &&
    current.status === expect.status &&
    (expect.owner === undefined || current.leaseOwner === expect.owner)
  ) {
    return current;
  }
  throw new IntentConflictError(
    id,
    compact({ status: expect.status, owner: expect.owner }) as { status: IntentStatus },
    current
      ? (compact({ status: current.status, owner: current.leaseOwner }) as {
          status: IntentStatus;
          owner?: string;
        })
      : undefined,
  );
}

/** Writes `patch` and `status` to a locked intent and indexes any receipt it carries. */
async function applyPatch(
  client: PoolClient,
  ctx: Ctx,
  current: DurableSendIntent,
  status: IntentStatus,
  patch: IntentPatch,
): Promise<DurableSendIntent> {
  const cols = patchColumns(patch, current, PG_JSON_COLUMNS);
  cols.status = status;
  cols.updated_at = ctx.clock();
  const names = Object.keys(cols);
  const { rows } = await client.query<Row>(
    `UPDATE ${ctx.t.intents} SET ${names.map((n, i) => `${n} = $${i + 2}`).join(", ")}
     WHERE id = $1 RETURNING *`,
    [current.id, ...names.map((n) => cols[n])],
  );
  const updated = intentFromRow(rows[0] as Row);
  if (patch.receipt || patch.partialReceipt) await indexReceipts(client, ctx, updated);
  return updated;
}

/** Adds the platform ids of an intent's receipts to the outbound registry. */
async function indexReceipts(client: PoolClient, ctx: Ctx, intent: DurableSendIntent) {
  const entries = registryEntries(intent);
  if (entries.length === 0) return;
  await client.query(
    `INSERT INTO ${ctx.t.receipts}
       (channel, account_id, platform_message_id, intent_id, part_index, recorded_at)
     SELECT $1, $2, u.pid, $3, u.part, $4
     FROM unnest($5::text[], $6::integer[]) AS u(pid, part)
     ON CONFLICT DO NOTHING`,
    [
      intent.channel,
      intent.accountId ?? "",
      intent.id,
      ctx.clock(),
      entries.map((e) => e.platformMessageId),
      entries.map((e) => e.partIndex),
    ],
  );
}

/**
 * Applies transitions all or none (see {@link MessageStateStore.transitionIntents}). Calls the
 * `store.mid_transaction` failpoint between items.
 *
 * @throws IllegalTransitionError before touching the database when the machine forbids one.
 * @throws IntentConflictError when an intent is not in `from` or leased by another owner.
 */
export async function transitionIntents(
  ctx: Ctx,
  transitions: readonly IntentTransition[],
): Promise<DurableSendIntent[]> {
  for (const t of transitions) assertTransition(t.from, t.to);
  if (transitions.length === 0) return [];
  return ctx.db.tx(async (client) => {
    const intents = await lockIntents(
      client,
      ctx,
      transitions.map((t) => t.id),
    );
    const out: DurableSendIntent[] = [];
    for (const [i, t] of transitions.entries()) {
      if (i > 0) failpoint("store.mid_transaction");
      const current = guard(t.id, intents.get(t.id), { status: t.from, owner: t.owner });
      const patch: IntentPatch = { ...t.patch };
      if (TERMINAL_STATUSES.includes(t.to) && patch.lease === undefined) patch.lease = "release";
      const updated = await applyPatch(client, ctx, current, t.to, patch);
      intents.set(t.id, updated);
      out.push(updated);
    }
    return out;
  });
}

/**
 * Changes fields without a status change, guarded by `expect`.
 *
 * @throws IntentConflictError when the guard fails.
 */
export async function updateIntent(
  ctx: Ctx,
  id: string,
  expect: Expect,
  patch: IntentPatch,
): Promise<DurableSendIntent> {
  return ctx.db.tx(async (client) => {
    const current = guard(id, (await lockIntents(client, ctx, [id])).get(id), expect);
    return applyPatch(client, ctx, current, expect.status, patch);
  });
}

/**
 * Deletes up to `limit` terminal intents last updated before `before` (epoch ms), oldest first;
 * their registry rows go with them (`ON DELETE CASCADE`). Rows locked by a concurrent purge are
 * skipped, so several processes may purge at once.
 *
 * @returns how many intents were deleted.
 */
export async function purgeTerminalIntents(
  ctx: Ctx,
  options: { before: number; limit: number },
): Promise<number> {
  const terminal = TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ");
  const r = await ctx.db.query(
    `DELETE FROM ${ctx.t.intents} WHERE id IN (
       SELECT id FROM ${ctx.t.intents}
       WHERE status IN (${terminal}) AND updated_at < $1
       ORDER BY updated_at LIMIT $2
       FOR UPDATE SKIP LOCKED)`,
    [options.before, options.limit],
  );
  return r.rowCount ?? 0;
}
