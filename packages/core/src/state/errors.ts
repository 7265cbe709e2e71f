/**
 * Errors of the state store.
 *
 * @module
 */
import { HeraldError } from "../errors.ts";
import type { IntentStatus } from "../message/intent.ts";

/**
 * A compare-and-set on an intent lost: the intent is not in the expected status, or another
 * worker holds its lease. Nothing was written.
 */
export class IntentConflictError extends HeraldError {
  readonly intentId: string;
  readonly expected: { status: IntentStatus; owner?: string };
  readonly actual: { status: IntentStatus; owner?: string } | undefined;
  constructor(
    intentId: string,
    expected: { status: IntentStatus; owner?: string },
    actual: { status: IntentStatus; owner?: string } | undefined,
  ) {
    const want = `${expected.status}${expected.owner ? ` leased by ${expected.owner}` : ""}`;
    const got = actual
      ? `${actual.status}${actual.owner ? ` leased by ${actual.owner}` : ""}`
      : "missing";
    super("HERALD_INTENT_CONFLICT", `intent ${intentId}: expected ${want}, found ${got}`);
    this.intentId = intentId;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * The store cannot be written (disk full, read-only file, closed store, lost connection). Under
 * durability policy `required` a send fails closed with this error and performs no platform I/O.
 */
export class StoreUnavailableError extends HeraldError {
  constructor(operation: string, cause: unknown) {
    super(
      "HERALD_STORE_UNAVAILABLE",
      `state store unavailable during ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/** The database file was written by a newer herald than this one. */
export class SchemaTooNewError extends HeraldError {
  constructor(found: number, supported: number) {
    super(
      "HERALD_SCHEMA_TOO_NEW",
      `state store schema version ${found} is newer than this herald supports (${supported}); upgrade herald`,
    );
  }
}
