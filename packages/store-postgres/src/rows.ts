/**
 * Row ↔ domain mapping. `pg` returns `bigint` columns as strings (they may exceed 2^53) and
 * `json` columns already parsed; absent optional fields are stored as NULL and come back absent
 * (never `undefined`-valued keys, for `exactOptionalPropertyTypes`).
 *
 * @module
 */
import type {
  DeadLetter,
  DedupeKey,
  DedupeRecord,
  DurableSendIntent,
  IntentStatus,
  LedgerEvent,
} from "@herald/core";
import { compact } from "@herald/core";

export { compact };

/** A row as `pg` returns it. */
export type Row = Record<string, unknown>;

/**
 * A `bigint`/`integer` column as a JS number. Epoch milliseconds and sequence numbers stay far
 * below 2^53; a value beyond that is corrupt data, reported instead of silently rounded.
 *
 * @throws RangeError when the value is not a safe integer.
 */
export function int(value: unknown): number {
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${String(value)}`);
  return n;
}

function optInt(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : int(value);
}

function optStr(value: unknown): string | undefined {
  return value === null || value === undefined || value === "" ? undefined : String(value);
}

function opt<T>(value: unknown): T | undefined {
  return value === null || value === undefined ? undefined : (value as T);
}

/**
 * Serializes a value for a `json` column, or NULL. Objects go in as JSON text (the driver would
 * turn arrays into PostgreSQL array literals); `json` keeps the text as written, so `\u0000` and
 * lone surrogates survive, unlike `jsonb`.
 */
export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** Maps an `intents` row to a {@link DurableSendIntent}. */
export function intentFromRow(row: Row): DurableSendIntent {
  return compact({
    id: String(row.id),
    idempotencyKey: String(row.idempotency_key),
    channel: String(row.channel),
    accountId: optStr(row.account_id),
    message: row.message as DurableSendIntent["message"],
    operation: row.operation as DurableSendIntent["operation"],
    orderingKey: String(row.ordering_key),
    seq: int(row.seq),
    batch: opt(row.batch),
    liveState: opt(row.live_state),
    status: String(row.status) as IntentStatus,
    attempt: int(row.attempt),
    nextAttemptAt: optInt(row.next_attempt_at),
    leaseOwner: optStr(row.lease_owner),
    leaseExpiresAt: optInt(row.lease_expires_at),
    receipt: opt(row.receipt),
    partialReceipt: opt(row.partial_receipt),
    firstDispatchAt: opt(row.first_dispatch),
    failure: opt(row.failure),
    turnId: optStr(row.turn_id),
    expiresAt: optInt(row.expires_at),
    createdAt: int(row.created_at),
    updatedAt: int(row.updated_at),
  } satisfies Record<keyof DurableSendIntent, unknown>) as DurableSendIntent;
}

/** Sorts leased intents the way they were chosen: due time, then enqueue order. */
export function byDueThenSeq(rows: readonly Row[]): Row[] {
  return [...rows].sort((a, b) => int(a.due_at) - int(b.due_at) || int(a.seq) - int(b.seq));
}

/** Maps a `ledger` row to a {@link LedgerEvent}. */
export function ledgerFromRow(row: Row): LedgerEvent {
  return compact({
    conversation: String(row.conversation),
    seq: int(row.seq),
    type: String(row.type),
    turnId: optStr(row.turn_id),
    at: int(row.at),
    data: opt(row.data),
  }) as LedgerEvent;
}

/** Maps a `dead_letters` row to a {@link DeadLetter}. */
export function deadLetterFromRow(row: Row): DeadLetter {
  return compact({
    id: String(row.id),
    channel: String(row.channel),
    accountId: optStr(row.account_id),
    raw: row.raw,
    error: row.error as DeadLetter["error"],
    status: String(row.status) as DeadLetter["status"],
    receivedAt: int(row.received_at),
    replayedAt: optInt(row.replayed_at),
    replayCount: int(row.replay_count),
  }) as DeadLetter;
}

/** Maps a `dedupe` row to a {@link DedupeRecord} of `key`. */
export function dedupeFromRow(key: DedupeKey, row: Row): DedupeRecord {
  return compact({
    channel: key.channel,
    accountId: key.accountId,
    eventId: key.eventId,
    status: String(row.status) as DedupeRecord["status"],
    owner: optStr(row.owner),
    leaseExpiresAt: optInt(row.lease_expires_at),
    expiresAt: optInt(row.expires_at),
    meta: opt(row.meta),
  }) as DedupeRecord;
}
