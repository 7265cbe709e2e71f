/**
 * Errors of the state store.
 *
 * @module
 */
import { HeraldError } from "../errors.ts";
import type { ReceiptConflictDetail } from "../message/failure.ts";
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
 * A write would make a platform message id the receipt of a second unit (DESIGN §12 "Receipt ids
 * are unique"; CASES C40): the id is already held in the outbound registry by another intent of
 * the same channel and account (`heldByIntentId`), or two units of this intent carry it. Nothing
 * was written. The same unit writing its own id again (a re-commit after a crash or a
 * reconcile), an edit or delete of the messages it targets (`operation.receipt`) and ids a live
 * final adopts from its previews (`IntentPatch.adoptedMessageIds`) are not conflicts.
 *
 * Delivery holds such an intent as `unknown_after_send` with `failure.reason`
 * `"receipt_conflict"` (`delivery/receiptConflict.ts`).
 */
export class ReceiptConflictError extends HeraldError {
  /** The intent whose write was refused. */
  readonly intentId: string;
  readonly channel: string;
  readonly accountId: string | undefined;
  readonly platformMessageId: string;
  /** Unit index of the refused intent's part carrying the id. */
  readonly partIndex: number;
  /** The intent that holds the id (this intent's own id when two of its units carry it). */
  readonly heldByIntentId: string;
  /** Unit index of the holder's part (-1: listed without a part). */
  readonly heldByPartIndex: number;
  constructor(p: {
    intentId: string;
    channel: string;
    accountId?: string | undefined;
    platformMessageId: string;
    partIndex: number;
    heldByIntentId: string;
    heldByPartIndex: number;
  }) {
    const holder =
      p.heldByIntentId === p.intentId
        ? `its own unit ${p.heldByPartIndex}`
        : `intent ${p.heldByIntentId} (unit ${p.heldByPartIndex})`;
    super(
      "HERALD_RECEIPT_CONFLICT",
      `intent ${p.intentId}: ${p.channel}${p.accountId ? `/${p.accountId}` : ""} answered unit ${p.partIndex} with message id ${p.platformMessageId}, already the receipt of ${holder}`,
    );
    this.intentId = p.intentId;
    this.channel = p.channel;
    this.accountId = p.accountId;
    this.platformMessageId = p.platformMessageId;
    this.partIndex = p.partIndex;
    this.heldByIntentId = p.heldByIntentId;
    this.heldByPartIndex = p.heldByPartIndex;
  }

  /** The conflict as stored on the held intent (`DeliveryFailure.receiptConflict`). */
  detail(): ReceiptConflictDetail {
    return {
      platformMessageId: this.platformMessageId,
      partIndex: this.partIndex,
      heldByIntentId: this.heldByIntentId,
      heldByPartIndex: this.heldByPartIndex,
    };
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
