/**
 * Compare-and-set writes to intents: status transitions, guarded patches, tombstone purge, and
 * the outbound registry rows they index.
 *
 * A batch is one statement, so one round trip and one commit: it locks every row it names
 * (`SELECT … ORDER BY id FOR UPDATE`, so two batches touching the same intents queue up in one
 * order instead of deadlocking), checks every guard on the locked rows, and only when all pass
 * updates them and inserts their registry rows; otherwise it writes nothing and returns the rows
 * as they were, and the batch is replayed on them in memory to name the conflicting step
 * (`transitionPlan.ts`). Before, a transition took `BEGIN`, a locking read, an `UPDATE` per
 * step, an `INSERT` per receipt and `COMMIT`: six round trips for committing + sent.
 *
 * @module
 */
import {
  assertTransition,
  type DurableSendIntent,
  failpoint,
  type IntentPatch,
  type IntentTransition,
  TERMINAL_STATUSES,
} from "@herald/core";
import { intentFromRow } from "../rows.ts";
import type { Ctx } from "./context.ts";
import {
  COLUMN_TYPES,
  type Expect,
  JSON_COLUMNS,
  type Plan,
  planSteps,
  type Row,
  replay,
  type Step,
} from "./transitionPlan.ts";

/** The statement of a plan and its parameters. */
function statementOf(ctx: Ctx, plan: Plan, now: number): { text: string; values: unknown[] } {
  const { t } = ctx;
  const values: unknown[] = [];
  const param = (value: unknown, type: string) => `$${values.push(value)}::${type}`;
  const writes = plan.ids.map(
    (id) => plan.writes.get(id) as NonNullable<ReturnType<Plan["writes"]["get"]>>,
  );
  const arrays = [
    `${param(plan.ids, "text[]")}`,
    `${param(
      writes.map((w) => w.from),
      "text[]",
    )}`,
    `${param(
      writes.map((w) => w.owner),
      "text[]",
    )}`,
    `${param(
      writes.map((w) => w.to),
      "text[]",
    )}`,
  ];
  const names = ["id", "from_status", "owner", "to_status"];
  const sets = ["status = v.to_status", `updated_at = ${param(now, "bigint")}`];
  const nowParam = `$${values.length}`;
  for (const [k, c] of plan.columns.entries()) {
    const type = COLUMN_TYPES[c] ?? "text";
    const all = writes.every((w) => c in w.cols);
    arrays.push(
      param(
        writes.map((w) => {
          const v = w.cols[c];
          return v === undefined || v === null ? null : String(v);
        }),
        "text[]",
      ),
    );
    names.push(`c${k}`);
    let value = `v.c${k}::${type}`;
    if (!all) {
      arrays.push(
        param(
          writes.map((w) => c in w.cols),
          "boolean[]",
        ),
      );
      names.push(`s${k}`);
      value = `CASE WHEN v.s${k} THEN ${value} ELSE u.${c} END`;
    }
    sets.push(`${c} = ${value}`);
    if (c === "next_attempt_at") {
      sets.push(
        all
          ? `due_at = COALESCE(v.c${k}::bigint, u.created_at)`
          : `due_at = CASE WHEN v.s${k} THEN COALESCE(v.c${k}::bigint, u.created_at) ELSE u.due_at END`,
      );
    }
  }
  const beforeCols = plan.before.map((c) => `b.${c}::text AS "before:${c}"`);
  const beforeNulls = plan.before.map((c) => `NULL::text AS "before:${c}"`);
  const ins =
    plan.entries.length === 0
      ? ""
      : `, ins AS (
       INSERT INTO ${t.receipts}
         (channel, account_id, platform_message_id, intent_id, part_index, recorded_at)
       SELECT upd.channel, COALESCE(upd.account_id, ''), e.pid, upd.id, e.part, ${nowParam}::bigint
       FROM unnest(${param(
         plan.entries.map((e) => e.id),
         "text[]",
       )}, ${param(
         plan.entries.map((e) => e.platformMessageId),
         "text[]",
       )}, ${param(
         plan.entries.map((e) => e.partIndex),
         "integer[]",
       )}) AS e(id, pid, part)
       JOIN upd ON upd.id = e.id
       ON CONFLICT DO NOTHING)`;
  const text = `WITH v AS (SELECT * FROM unnest(${arrays.join(", ")}) AS v(${names.join(", ")})),
     b AS (SELECT i.* FROM ${t.intents} AS i WHERE i.id = ANY($1::text[]) ORDER BY i.id FOR UPDATE),
     ok AS (
       SELECT count(*) = cardinality($1::text[]) AS yes FROM b JOIN v ON v.id = b.id
       WHERE b.status = v.from_status
         AND (v.owner IS NULL OR (b.lease_owner = v.owner AND v.owner <> ''))),
     upd AS (
       UPDATE ${t.intents} AS u SET ${sets.join(", ")}
       FROM v, b, ok WHERE ok.yes AND u.id = v.id AND b.id = v.id
       RETURNING u.*${beforeCols.map((c) => `, ${c}`).join("")})${ins}
     SELECT true AS applied, upd.* FROM upd
     UNION ALL
     SELECT false, b.*${beforeNulls.map((c) => `, ${c}`).join("")} FROM b
     WHERE NOT (SELECT yes FROM ok)`;
  return { text, values };
}

/** A row returned by the statement without its extra columns; `before` values kept aside. */
function split(row: Row): { row: Row; before: Row } {
  const plain: Row = {};
  const before: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === "applied") continue;
    if (k.startsWith("before:")) {
      const c = k.slice("before:".length);
      before[c] = v === null ? null : JSON_COLUMNS.has(c) ? JSON.parse(String(v)) : v;
    } else plain[k] = v;
  }
  return { row: plain, before };
}

/**
 * Applies guarded steps all or none in one statement.
 * @returns the intent after each step, in step order.
 * @throws IntentConflictError naming the first step whose guard fails (nothing written).
 */
async function applySteps(ctx: Ctx, steps: readonly Step[]): Promise<DurableSendIntent[]> {
  const now = ctx.clock();
  const plan = planSteps(steps);
  const byId = (rows: readonly Row[]) => new Map(rows.map((r) => [String(r.id), r]));
  if (!plan.consistent) {
    // The batch contradicts itself: it cannot apply. Replay it on the rows to throw the
    // conflict a step-by-step transaction would have met first.
    const { rows } = await ctx.db.query<Row>(
      `SELECT * FROM ${ctx.t.intents} WHERE id = ANY($1::text[])`,
      [plan.ids],
    );
    replay(steps, byId(rows), now);
    throw new Error("transition batch contradicts itself but replayed without a conflict");
  }
  const { text, values } = statementOf(ctx, plan, now);
  const { rows } = await ctx.db.query<Row>(text, values);
  const parts = rows.map(split);
  if (rows[0]?.applied !== true) {
    replay(steps, byId(parts.map((p) => p.row)), now);
    throw new Error("transition guard failed but its replay found no conflict");
  }
  const finals = byId(parts.map((p) => p.row));
  const last = new Map(steps.map((s, i) => [s.id, i]));
  const many = steps.length > plan.ids.length;
  // Intermediate states (an intent with several steps): replayed from the final rows with the
  // status and the columns only later steps wrote set back to their values before the statement.
  const replayed = many
    ? replay(
        steps,
        new Map(
          parts.map((p) => {
            const id = String(p.row.id);
            return [id, { ...p.row, ...p.before, status: plan.writes.get(id)?.from }];
          }),
        ),
        now,
      )
    : undefined;
  return steps.map((s, i) =>
    intentFromRow((last.get(s.id) === i ? finals.get(s.id) : replayed?.[i]) as Row),
  );
}

/**
 * Applies transitions all or none (see {@link MessageStateStore.transitionIntents}). Calls the
 * `store.mid_transaction` failpoint between items (before the statement: a crash there leaves
 * every intent as it was).
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
  const steps = transitions.map((t, i): Step => {
    if (i > 0) failpoint("store.mid_transaction");
    const patch: IntentPatch = { ...t.patch };
    if (TERMINAL_STATUSES.includes(t.to) && patch.lease === undefined) patch.lease = "release";
    return { id: t.id, expect: { status: t.from, owner: t.owner }, to: t.to, patch };
  });
  return applySteps(ctx, steps);
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
  const [updated] = await applySteps(ctx, [{ id, expect, to: expect.status, patch }]);
  return updated as DurableSendIntent;
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
