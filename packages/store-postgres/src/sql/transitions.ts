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
  patchClaims,
  ReceiptConflictError,
  TERMINAL_STATUSES,
  targetMessageIds,
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
  // Registry rows (DESIGN §12 "Receipt ids are unique"): an id another intent holds refuses the
  // whole call (`clash`) unless it is shared — adopted, or a target of the row's edit or delete
  // (`operation.receipt`). A call's own rows are not inserted again; the rest are inserted
  // without `ON CONFLICT`, so an id another transaction committed after this statement's
  // snapshot fails the statement (23505) instead of being dropped: `applyCalls` runs it again.
  // Shared ids are indexed only when nobody holds them.
  const registry =
    plan.entries.length === 0
      ? { ctes: "", clash: "" }
      : {
          ctes: `,
     e AS (SELECT * FROM unnest(${param(
       plan.entries.map((e) => e.id),
       "text[]",
     )}, ${param(
       plan.entries.map((e) => e.platformMessageId),
       "text[]",
     )}, ${param(
       plan.entries.map((e) => e.partIndex),
       "integer[]",
     )}, ${param(
       plan.entries.map((e) => e.adopted),
       "boolean[]",
     )}) AS e(id, pid, part, adopted)),
     es AS (
       SELECT e.id, e.pid, e.part, v.g, b.channel, COALESCE(b.account_id, '') AS account,
         e.adopted OR COALESCE(
           (b.operation::jsonb -> 'receipt' -> 'platformMessageIds') ? e.pid
           OR (b.operation::jsonb -> 'receipt' -> 'parts') @> jsonb_build_array(
             jsonb_build_object('platformMessageId', e.pid)), false) AS shared
       FROM e JOIN v ON v.id = e.id JOIN b ON b.id = e.id),
     clash AS (
       SELECT DISTINCT es.g FROM es JOIN ${t.receipts} AS r
         ON r.channel = es.channel AND r.account_id = es.account AND r.platform_message_id = es.pid
       WHERE r.intent_id <> es.id AND NOT es.shared)`,
          clash: "WHERE v.g NOT IN (SELECT g FROM clash)",
        };
  const ins =
    plan.entries.length === 0
      ? ""
      : `, ins AS (
       INSERT INTO ${t.receipts}
         (channel, account_id, platform_message_id, intent_id, part_index, recorded_at)
       SELECT es.channel, es.account, es.pid, es.id, es.part, ${nowParam}::bigint
       FROM es JOIN upd ON upd.id = es.id
       WHERE NOT es.shared AND NOT EXISTS (
         SELECT 1 FROM ${t.receipts} AS r WHERE r.channel = es.channel
           AND r.account_id = es.account AND r.platform_message_id = es.pid
           AND r.intent_id = es.id)),
     ins_shared AS (
       INSERT INTO ${t.receipts}
         (channel, account_id, platform_message_id, intent_id, part_index, recorded_at)
       SELECT es.channel, es.account, es.pid, es.id, es.part, ${nowParam}::bigint
       FROM es JOIN upd ON upd.id = es.id WHERE es.shared
       ON CONFLICT DO NOTHING)`;
  const text = `WITH v AS (SELECT * FROM unnest(${arrays.join(", ")}) AS v(${names.join(", ")})),
     b AS (SELECT i.* FROM ${t.intents} AS i WHERE i.id = ANY($1::text[]) ORDER BY i.id FOR UPDATE)${registry.ctes},
     ok AS (
       SELECT v.g FROM v LEFT JOIN b ON b.id = v.id ${registry.clash} GROUP BY v.g
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
  for (let tries = 1; ; tries++) {
    try {
      return await applyOnce(ctx, calls);
    } catch (error) {
      // A registry row committed by another transaction after the statement's snapshot (or two
      // calls of this statement claiming one id): nothing was written. Each call runs again on
      // its own, where the committed row is seen and refuses only the call that claims it.
      if (!isRegistryClash(error, ctx) || tries >= 3) throw error;
      if (calls.length > 1) {
        const out: CallOutcome[] = [];
        for (const call of calls) out.push(...(await applyCalls(ctx, [call])));
        return out;
      }
    }
  }
}

/** True for the unique violation of the registry's primary key (`receipts_pkey`). */
function isRegistryClash(error: unknown, ctx: Ctx): boolean {
  const e = error as { code?: unknown; table?: unknown; schema?: unknown } | undefined;
  return e?.code === "23505" && e.table === "receipts" && e.schema === ctx.t.schema;
}

async function applyOnce(ctx: Ctx, calls: readonly (readonly Step[])[]): Promise<CallOutcome[]> {
  const now = ctx.clock();
  const byId = (rows: readonly Row[]) => new Map(rows.map((r) => [String(r.id), r]));
  const plans = calls.map((steps) => planSteps(steps));
  const outcomes: CallOutcome[] = new Array(calls.length);
  // A call that contradicts itself cannot apply: replay it on the rows to throw the conflict a
  // step-by-step transaction would have met first. Nor can one whose receipt gives one id to
  // two units (DESIGN §12).
  const doubled = calls.map((steps) => steps.find((s) => patchClaims(s.patch).duplicate));
  const contradicting = plans.flatMap((p, i) => (p.consistent && !doubled[i] ? [] : [i]));
  if (contradicting.length > 0) {
    const ids = contradicting.flatMap((i) => (plans[i] as Plan).ids);
    const { rows } = await ctx.db.query<Row>(
      `SELECT * FROM ${ctx.t.intents} WHERE id = ANY($1::text[])`,
      [ids],
    );
    const found = byId(rows);
    for (const i of contradicting) {
      const step = doubled[i];
      outcomes[i] = {
        error: step
          ? doubledError(step, found.get(step.id))
          : conflictOf(calls[i] ?? [], found, now),
      };
    }
  }
  const live = plans.flatMap((p, i) => (p.consistent && !doubled[i] ? [i] : []));
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
      : {
          error: await refusalOf(ctx, steps, byId(parts.map((p) => p.row)), now),
        };
  }
  return outcomes;
}

/** The refusal of a step whose receipt gives one id to two units, as `registryClaims` throws. */
function doubledError(step: Step, row: Row | undefined): unknown {
  const duplicate = patchClaims(step.patch).duplicate;
  if (!row || !duplicate) return new Error(`intent ${step.id} not found`);
  const accountId = row.account_id === null ? undefined : String(row.account_id);
  return new ReceiptConflictError({
    intentId: step.id,
    channel: String(row.channel),
    accountId,
    ...duplicate,
    heldByIntentId: step.id,
  });
}

/**
 * Why a call the statement did not apply was refused: the guard a step-by-step transaction
 * would have met first, else the receipt id another intent holds (`ReceiptConflictError`, read
 * from the registry: one more round trip, on this path only).
 */
async function refusalOf(
  ctx: Ctx,
  steps: readonly Step[],
  rows: Map<string, Row>,
  now: number,
): Promise<unknown> {
  try {
    replay(steps, rows, now);
  } catch (error) {
    return error;
  }
  for (const step of steps) {
    const row = rows.get(step.id);
    const claims = patchClaims(step.patch).claims.filter((c) => !c.adopted);
    if (!row || claims.length === 0) continue;
    const intent = intentFromRow(row);
    const targets = targetMessageIds(intent.operation);
    const { rows: held } = await ctx.db.query<Row>(
      `SELECT platform_message_id, intent_id, part_index FROM ${ctx.t.receipts}
       WHERE channel = $1 AND account_id = $2 AND platform_message_id = ANY($3::text[])
         AND intent_id <> $4`,
      [intent.channel, intent.accountId ?? "", claims.map((c) => c.platformMessageId), intent.id],
    );
    for (const c of claims) {
      const h = held.find((r) => r.platform_message_id === c.platformMessageId);
      if (!h || targets.has(c.platformMessageId)) continue;
      return new ReceiptConflictError({
        intentId: intent.id,
        channel: intent.channel,
        accountId: intent.accountId,
        platformMessageId: c.platformMessageId,
        partIndex: c.partIndex,
        heldByIntentId: String(h.intent_id),
        heldByPartIndex: Number(h.part_index),
      });
    }
  }
  return new Error("transition guard failed but its replay found no conflict");
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
