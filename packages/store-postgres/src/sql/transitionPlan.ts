/**
 * How a batch of guarded intent writes (transitions, or a patch without a status change) becomes
 * one statement, in memory and without the database: the steps of each intent are folded into
 * the columns its row ends with and the guard its row must pass before (`from` status, lease
 * owner), and the batch can be replayed step by step on rows read back — to name the step that
 * conflicted, exactly as a step-by-step transaction would, or to rebuild the intermediate states
 * of an intent that takes several steps in one call.
 *
 * @module
 */
import {
  IntentConflictError,
  type IntentPatch,
  type IntentStatus,
  patchClaims,
  patchColumns,
} from "@herald/core";
import { compact } from "../rows.ts";

/** This schema's JSON column names (see `migrations.ts`). */
export const PG_JSON_COLUMNS = {
  failure: "failure",
  receipt: "receipt",
  partialReceipt: "partial_receipt",
  liveState: "live_state",
  batch: "batch",
  firstDispatchAt: "first_dispatch",
};
export const JSON_COLUMNS = new Set(Object.values(PG_JSON_COLUMNS));

/** SQL types of the columns a patch writes (values travel as text and are cast). */
export const COLUMN_TYPES: Record<string, string> = {
  attempt: "integer",
  next_attempt_at: "bigint",
  lease_owner: "text",
  lease_expires_at: "bigint",
  expires_at: "bigint",
  ...Object.fromEntries([...JSON_COLUMNS].map((c) => [c, "json"])),
};

/** What a row must hold before a step: its status and, when given, its lease owner. */
export type Expect = { status: IntentStatus; owner?: string | undefined };

/** One guarded write of one intent. */
export type Step = {
  id: string;
  expect: Expect;
  to: IntentStatus;
  patch: IntentPatch;
};

/** A row as `pg` returns it (bigint as text, json parsed). */
export type Row = Record<string, unknown>;

/** The folded write of one intent. */
export type RowWrite = {
  /** Status the row must be in. */
  from: IntentStatus;
  /** Lease owner the row must hold, or null for no check. */
  owner: string | null;
  to: IntentStatus;
  /** Column → value (text for json, number, or null) the row ends with. */
  cols: Record<string, string | number | null>;
};

/** A batch folded for one statement. */
export type Plan = {
  /** Distinct intent ids, in first-appearance order. */
  ids: string[];
  writes: Map<string, RowWrite>;
  /** Every column some row writes (besides status, updated_at and due_at). */
  columns: string[];
  /** Columns whose value before the statement is needed to rebuild intermediate states. */
  before: string[];
  /**
   * Outbound registry rows: the platform ids of the receipts the steps write, and whether the
   * step adopts the id (`IntentPatch.adoptedMessageIds`). The statement refuses an id another
   * intent holds unless it is adopted or a target of the row's edit or delete (DESIGN §12).
   */
  entries: Array<{ id: string; platformMessageId: string; partIndex: number; adopted: boolean }>;
  /**
   * False when the batch contradicts itself (a step's `from` is not the previous step's `to`,
   * or two steps expect different owners of one row): it cannot apply; replay it on the rows to
   * find the conflicting step.
   */
  consistent: boolean;
};

/** The columns a step writes (`due_at` is derived from `next_attempt_at` in SQL). */
function columnsOf(patch: IntentPatch): Record<string, string | number | null> {
  const cols = patchColumns(patch, { createdAt: 0 }, PG_JSON_COLUMNS);
  delete cols.due_at;
  return cols;
}

/**
 * Folds steps into one write per intent. Registry entries come from the receipts the patches
 * carry: every receipt and partial receipt the store ever wrote was indexed in the statement
 * that wrote it, and registry rows are never overwritten, so the receipts already on a row add
 * nothing. Two units of one receipt carrying one id are refused before the plan
 * (`applyCalls`).
 */
export function planSteps(steps: readonly Step[]): Plan {
  const writes = new Map<string, RowWrite>();
  /** Per intent: the lease owner after the steps so far, when a step set it. */
  const ownerSet = new Map<string, { owner: string | undefined }>();
  const columns = new Set<string>();
  const before = new Set<string>();
  const entries: Plan["entries"] = [];
  const indexed = new Set<string>();
  let consistent = true;
  for (const step of steps) {
    const cols = columnsOf(step.patch);
    let w = writes.get(step.id);
    if (!w) {
      w = { from: step.expect.status, owner: step.expect.owner ?? null, to: step.to, cols: {} };
      writes.set(step.id, w);
    } else {
      if (step.expect.status !== w.to) consistent = false;
      const wanted = step.expect.owner;
      const set = ownerSet.get(step.id);
      if (wanted !== undefined) {
        if (set) {
          if (set.owner !== wanted) consistent = false;
        } else if (w.owner === null) w.owner = wanted;
        else if (w.owner !== wanted) consistent = false;
      }
      // A column a later step writes and the earlier ones did not: its value before the
      // statement is needed to rebuild the intermediate states.
      for (const c of Object.keys(cols)) if (!(c in w.cols)) before.add(c);
      w.to = step.to;
    }
    Object.assign(w.cols, cols);
    for (const c of Object.keys(cols)) columns.add(c);
    if (step.patch.lease === "release") ownerSet.set(step.id, { owner: undefined });
    else if (step.patch.lease) ownerSet.set(step.id, { owner: step.patch.lease.owner });
    if (step.patch.receipt || step.patch.partialReceipt) {
      for (const e of patchClaims(step.patch).claims) {
        // First one wins, as `ON CONFLICT DO NOTHING` over several statements would.
        if (indexed.has(e.platformMessageId)) continue;
        indexed.add(e.platformMessageId);
        entries.push({ id: step.id, ...e });
      }
    }
  }
  return {
    ids: [...writes.keys()],
    writes,
    columns: [...columns],
    before: [...before],
    entries,
    consistent,
  };
}

/** @throws IntentConflictError when `row` is missing, in another status or leased by another. */
export function guard(id: string, row: Row | undefined, expect: Expect): Row {
  const owner = row ? ownerOf(row) : undefined;
  if (
    row &&
    row.status === expect.status &&
    (expect.owner === undefined || owner === expect.owner)
  ) {
    return row;
  }
  throw new IntentConflictError(
    id,
    compact({ status: expect.status, owner: expect.owner }) as { status: IntentStatus },
    row
      ? (compact({ status: row.status as IntentStatus, owner }) as {
          status: IntentStatus;
          owner?: string;
        })
      : undefined,
  );
}

function ownerOf(row: Row): string | undefined {
  const o = row.lease_owner;
  return o === null || o === undefined || o === "" ? undefined : String(o);
}

/** Applies one step's columns to a row in memory (json columns parsed, as `pg` returns them). */
function applyTo(row: Row, step: Step, now: number): Row {
  const next: Row = { ...row, status: step.to, updated_at: now };
  for (const [c, v] of Object.entries(columnsOf(step.patch))) {
    next[c] = JSON_COLUMNS.has(c) && typeof v === "string" ? JSON.parse(v) : v;
  }
  if (step.patch.nextAttemptAt !== undefined) {
    next.due_at = step.patch.nextAttemptAt ?? row.created_at;
  }
  return next;
}

/**
 * Runs the steps one after another on rows in memory, guard first, as a step-by-step
 * transaction would: @returns the row after each step.
 * @throws IntentConflictError at the first step whose guard fails.
 */
export function replay(steps: readonly Step[], rows: Map<string, Row>, now: number): Row[] {
  const current = new Map(rows);
  const out: Row[] = [];
  for (const step of steps) {
    const row = applyTo(guard(step.id, current.get(step.id), step.expect), step, now);
    current.set(step.id, row);
    out.push(row);
  }
  return out;
}
