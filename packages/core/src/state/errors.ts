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
  /**
   * @param code - the error's `code`; subclasses name a more specific one.
   *   @defaultValue "HERALD_STORE_UNAVAILABLE"
   */
  constructor(operation: string, cause: unknown, code = "HERALD_STORE_UNAVAILABLE") {
    super(
      code,
      `state store unavailable during ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * The store gave up for good (`code` `HERALD_STORE_FAILED`): its SQLite worker thread crashed
 * `crashes` times within `windowMs` ms — it died, or a replacement failed to open the database
 * — so it is no longer restarted, and every call fails with this error until the process
 * restarts (readiness reports the code). A {@link StoreUnavailableError}: whatever treats the
 * store as unavailable (sends fail closed, webhooks answer 503) still does.
 */
export class StoreFailedError extends StoreUnavailableError {
  /** Worker crashes (deaths and failed restarts) counted within the window. */
  readonly crashes: number;
  /** The window they were counted in, ms. */
  readonly windowMs: number;
  constructor(operation: string, crashes: number, windowMs: number, lastError: unknown) {
    const last = lastError instanceof Error ? lastError.message : String(lastError);
    super(
      operation,
      new Error(
        `the store worker crashed ${crashes} times within ${windowMs} ms and is no longer restarted (last: ${last}); restart the process`,
        { cause: lastError },
      ),
      "HERALD_STORE_FAILED",
    );
    this.crashes = crashes;
    this.windowMs = windowMs;
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
