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

/**
 * The statement of a plan and its parameters. `groups[i]` numbers the call of `plan.ids[i]`:
 * each call applies all or none of its own rows, whatever the other calls of the statement do.
 */
function statementOf(
  ctx: Ctx,
  plan: Plan,
  groups: readonly number[],
  now: number,
): { text: string; values: unknown[] } {
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
    `${param(groups, "integer[]")}`,
  ];
  const names = ["id", "from_status", "owner", "to_status", "g"];
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
       SELECT v.g FROM v LEFT JOIN b ON b.id = v.id GROUP BY v.g
       HAVING bool_and(COALESCE(b.status = v.from_status
         AND (v.owner IS NULL OR (b.lease_owner = v.owner AND v.owner <> '')), false))),
     upd AS (
       UPDATE ${t.intents} AS u SET ${sets.join(", ")}
       FROM v, b WHERE u.id = v.id AND b.id = v.id AND v.g IN (SELECT g FROM ok)
       RETURNING v.g AS "call:", u.*${beforeCols.map((c) => `, ${c}`).join("")})${ins}
     SELECT true AS applied, upd.* FROM upd
     UNION ALL
     SELECT false, v.g, b.*${beforeNulls.map((c) => `, ${c}`).join("")} FROM b JOIN v ON v.id = b.id
     WHERE v.g NOT IN (SELECT g FROM ok)`;
  return { text, values };
}

/** A returned row without its extra columns, and its `before` values. */
type Split = { row: Row; before: Row };

/** A row returned by the statement without its extra columns; `before` values kept aside. */
function split(row: Row): Split {
  const plain: Row = {};
  const before: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === "applied" || k === "call:") continue;
    if (k.startsWith("before:")) {
      const c = k.slice("before:".length);
      before[c] = v === null ? null : JSON_COLUMNS.has(c) ? JSON.parse(String(v)) : v;
    } else plain[k] = v;
  }
  return { row: plain, before };
}

/** The outcome of one call of a statement: its intents after each step, or its conflict. */
export type CallOutcome = { value: DurableSendIntent[] } | { error: unknown };

/** Whether `steps` touch no intent of the calls already taken (see `StatementBatcher`). */
export function disjoint(steps: readonly Step[], taken: readonly (readonly Step[])[]): boolean {
  const mine = new Set(steps.map((s) => s.id));
  return taken.every((other) => other.every((s) => !mine.has(s.id)));
}

/**
 * Applies several calls of guarded steps in one statement (one round trip, one commit), each
 * call all or none whatever the others do; no two calls may name the same intent.
 * @returns per call, the intent after each step in step order, or the IntentConflictError
 *   naming the first step whose guard failed (nothing of that call written).
 */
export async function applyCalls(
  ctx: Ctx,
  calls: readonly (readonly Step[])[],
): Promise<CallOutcome[]> {
  const now = ctx.clock();
  const byId = (rows: readonly Row[]) => new Map(rows.map((r) => [String(r.id), r]));
  const plans = calls.map((steps) => planSteps(steps));
  const outcomes: CallOutcome[] = new Array(calls.length);
  // A call that contradicts itself cannot apply: replay it on the rows to throw the conflict a
  // step-by-step transaction would have met first.
  const contradicting = plans.flatMap((p, i) => (p.consistent ? [] : [i]));
  if (contradicting.length > 0) {
    const ids = contradicting.flatMap((i) => (plans[i] as Plan).ids);
    const { rows } = await ctx.db.query<Row>(
      `SELECT * FROM ${ctx.t.intents} WHERE id = ANY($1::text[])`,
      [ids],
    );
    const found = byId(rows);
    for (const i of contradicting) outcomes[i] = { error: conflictOf(calls[i] ?? [], found, now) };
  }
  const live = plans.flatMap((p, i) => (p.consistent ? [i] : []));
  if (live.length === 0) return outcomes;
  const plan = merge(live.map((i) => plans[i] as Plan));
  const groups = live.flatMap((i, g) => (plans[i] as Plan).ids.map(() => g));
  const { text, values } = statementOf(ctx, plan, groups, now);
  const { rows } = await ctx.db.query<Row>(text, values);
  const perCall = live.map(() => ({ applied: false, parts: [] as Split[] }));
  for (const row of rows) {
    const call = perCall[Number(row["call:"])];
    if (!call) throw new Error("transition statement returned a row of no call");
    call.applied = row.applied === true;
    call.parts.push(split(row));
  }
  for (const [g, i] of live.entries()) {
    const steps = calls[i] ?? [];
    const { applied, parts } = perCall[g] as (typeof perCall)[number];
    outcomes[i] = applied
      ? { value: resultsOf(steps, plans[i] as Plan, parts, now) }
      : { error: conflictOf(steps, byId(parts.map((p) => p.row)), now) };
  }
  return outcomes;
}

/** The conflict a step-by-step transaction would have met on `rows`. */
function conflictOf(steps: readonly Step[], rows: Map<string, Row>, now: number): unknown {
  try {
    replay(steps, rows, now);
  } catch (error) {
    return error;
  }
  return new Error("transition guard failed but its replay found no conflict");
}

/** One plan of calls on distinct intents: their writes, columns and registry rows together. */
function merge(plans: readonly Plan[]): Plan {
  if (plans.length === 1) return plans[0] as Plan;
  const columns = new Set<string>();
  const before = new Set<string>();
  const merged: Plan = {
    ids: [],
    writes: new Map(),
    columns: [],
    before: [],
    entries: [],
    consistent: true,
  };
  for (const p of plans) {
    merged.ids.push(...p.ids);
    for (const [id, w] of p.writes) merged.writes.set(id, w);
    for (const c of p.columns) columns.add(c);
    for (const c of p.before) before.add(c);
    // Not deduplicated across calls: a call that does not apply inserts none of its rows.
    merged.entries.push(...p.entries);
  }
  merged.columns = [...columns];
  merged.before = [...before];
  return merged;
}

/** The intents after each step of one applied call, from the rows the statement returned. */
function resultsOf(
  steps: readonly Step[],
  plan: Plan,
  parts: readonly Split[],
  now: number,
): DurableSendIntent[] {
  const finals = new Map(parts.map((p) => [String(p.row.id), p.row]));
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

/** Unwraps one call's outcome: its intents, or its error thrown. */
export function unwrap(outcome: CallOutcome): DurableSendIntent[] {
  if ("error" in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * The steps of a `transitionIntents` call (see {@link MessageStateStore.transitionIntents}), to
 * apply all or none with {@link applyCalls}. Calls the `store.mid_transaction` failpoint between
 * items (before the statement: a crash there leaves every intent as it was).
 *
 * @throws IllegalTransitionError before touching the database when the machine forbids one.
 */
export function transitionSteps(transitions: readonly IntentTransition[]): Step[] {
  for (const t of transitions) assertTransition(t.from, t.to);
  return transitions.map((t, i): Step => {
    if (i > 0) failpoint("store.mid_transaction");
    const patch: IntentPatch = { ...t.patch };
    if (TERMINAL_STATUSES.includes(t.to) && patch.lease === undefined) patch.lease = "release";
    return { id: t.id, expect: { status: t.from, owner: t.owner }, to: t.to, patch };
  });
}

/** The step of `updateIntent`: fields without a status change, guarded by `expect`. */
export function updateStep(id: string, expect: Expect, patch: IntentPatch): Step {
  return { id, expect, to: expect.status, patch };
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
