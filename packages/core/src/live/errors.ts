/**
 * Errors of live sessions.
 *
 * @module
 */
import { HeraldError } from "../errors.ts";

/** `update` / `finalize` on a session that was already finalized or cancelled. */
export class LiveSessionEndedError extends HeraldError {
  readonly idempotencyKey: string;
  constructor(idempotencyKey: string, how: string) {
    super(
      "HERALD_LIVE_ENDED",
      `live session ${idempotencyKey} already ${how}; open a new session for another message`,
    );
    this.idempotencyKey = idempotencyKey;
  }
}

/** Another live session (in this or another process) is streaming under the same key. */
export class LiveSessionBusyError extends HeraldError {
  readonly idempotencyKey: string;
  readonly owner: string | undefined;
  constructor(idempotencyKey: string, owner: string | undefined, leaseExpiresAt?: number) {
    super(
      "HERALD_LIVE_BUSY",
      `live session ${idempotencyKey} is already streaming (owner ${owner ?? "?"}${
        leaseExpiresAt ? `, lease until ${new Date(leaseExpiresAt).toISOString()}` : ""
      }); use another idempotency key or wait for it to end`,
    );
    this.idempotencyKey = idempotencyKey;
    this.owner = owner;
  }
}
