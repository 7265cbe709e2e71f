/**
 * Row ↔ domain mapping shared by the SQL stores. JSON columns hold nested data; absent optional
 * fields are stored as NULL and come back absent (never `undefined`-valued keys).
 *
 * @module
 */
import type { DurableSendIntent, IntentStatus } from "../../message/intent.ts";
import { compact } from "../storeHelpers.ts";

export { compact };

import type { DeadLetter, LedgerEvent } from "../types.ts";

type Scalar = string | number | bigint | null | Uint8Array;
/** A database row as the driver returns it. */
export type Row = Record<string, Scalar | undefined>;

/** Parses a JSON column; NULL → undefined. */
export function json<T>(value: Scalar | undefined): T | undefined {
  return parse<T>(value);
}

function parse<T>(value: Scalar | undefined): T | undefined {
  return value === null || value === undefined ? undefined : (JSON.parse(String(value)) as T);
}

/** Serializes an optional value for a JSON column. */
export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function num(value: Scalar | undefined): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

function str(value: Scalar | undefined): string | undefined {
  return value === null || value === undefined || value === "" ? undefined : String(value);
}

/**
 * Maps an `intents` row to a {@link DurableSendIntent}.
 * @param prev - an earlier version of the same row and its mapping (the row before an update
 *   this transaction made): a JSON column holding the same text is not parsed again.
 */
export function intentFromRow(
  row: Row,
  prev?: { row: Row; intent: DurableSendIntent },
): DurableSendIntent {
  const json = (column: string, field: keyof DurableSendIntent): unknown => {
    const value = row[column];
    return prev && value === prev.row[column] ? prev.intent[field] : parse(value);
  };
  // Required fields first, optional ones only when present: built without `compact`'s deletes
  // (a deleted key turns the object into a slow dictionary; this runs for every row read).
  const required = {
    id: String(row.id),
    idempotencyKey: String(row.idempotency_key),
    channel: String(row.channel),
    message: json("message_json", "message") as DurableSendIntent["message"],
    operation: json("operation_json", "operation") as DurableSendIntent["operation"],
    orderingKey: String(row.ordering_key),
    seq: Number(row.seq),
    status: String(row.status) as IntentStatus,
    attempt: Number(row.attempt),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  const optional = {
    accountId: str(row.account_id),
    batch: json("batch_json", "batch"),
    liveState: json("live_state_json", "liveState"),
    nextAttemptAt: num(row.next_attempt_at),
    leaseOwner: str(row.lease_owner),
    leaseExpiresAt: num(row.lease_expires_at),
    receipt: json("receipt_json", "receipt"),
    partialReceipt: json("partial_receipt_json", "partialReceipt"),
    firstDispatchAt: json("first_dispatch_json", "firstDispatchAt"),
    failure: json("failure_json", "failure"),
    turnId: str(row.turn_id),
    expiresAt: num(row.expires_at),
  };
  // Every field of the intent is mapped (a compile error names the one that is not).
  const covered: Exclude<
    keyof DurableSendIntent,
    keyof typeof required | keyof typeof optional
  > extends never
    ? true
    : never = true;
  void covered;
  const target = required as Record<string, unknown>;
  for (const key of Object.keys(optional) as Array<keyof typeof optional>) {
    const value = optional[key];
    if (value !== undefined) target[key] = value;
  }
  return required as DurableSendIntent;
}

/** Maps a `ledger` row to a {@link LedgerEvent}. */
export function ledgerFromRow(row: Row): LedgerEvent {
  return compact({
    conversation: String(row.conversation),
    seq: Number(row.seq),
    type: String(row.type),
    turnId: str(row.turn_id),
    at: Number(row.at),
    data: json(row.data_json),
  }) as LedgerEvent;
}

/** Maps a `dead_letters` row to a {@link DeadLetter}. */
export function deadLetterFromRow(row: Row): DeadLetter {
  return compact({
    id: String(row.id),
    channel: String(row.channel),
    accountId: str(row.account_id),
    raw: json(row.raw_json),
    error: json(row.error_json) as DeadLetter["error"],
    status: String(row.status) as DeadLetter["status"],
    receivedAt: Number(row.received_at),
    replayedAt: num(row.replayed_at),
    replayCount: Number(row.replay_count),
  }) as DeadLetter;
}
