/**
 * Errors a send can end with. Each carries the intent id so an operator can find it with
 * `herald queue show <id>`.
 *
 * @module
 */
import { HeraldError } from "../errors.ts";
import type { DeliveryFailure } from "../message/failure.ts";
import { type DurableSendIntent, isHeldForOperator } from "../message/intent.ts";

/** The message will not be delivered automatically: the failure kind is terminal or retries ran out. */
export class DeliveryFailedError extends HeraldError {
  readonly intentId: string | undefined;
  readonly failure: DeliveryFailure | undefined;
  constructor(failure: DeliveryFailure | undefined, intentId?: string) {
    super(
      `HERALD_DELIVERY_FAILED`,
      `delivery failed${intentId ? ` (intent ${intentId})` : ""}: ${failure ? `${failure.kind}${failure.platformCode ? `[${failure.platformCode}]` : ""}: ${failure.message}` : "unknown reason"}`,
    );
    this.intentId = intentId;
    this.failure = failure;
  }
}

/** An operator or a newer live message cancelled the intent before it was delivered. */
export class DeliveryCancelledError extends HeraldError {
  readonly intentId: string;
  constructor(intentId: string) {
    super("HERALD_DELIVERY_CANCELLED", `intent ${intentId} was cancelled before delivery`);
    this.intentId = intentId;
  }
}

/**
 * The message was not sent: it was older than its `maxAgeMs` when its attempt came (a reply that
 * waited behind an outage or a rate limit; [H25], C55). The intent ends `expired`; an operator
 * may still send it (`herald queue retry`).
 */
export class DeliveryExpiredError extends HeraldError {
  readonly intentId: string;
  /** Epoch ms the intent expired at (`createdAt + maxAgeMs`). */
  readonly expiresAt: number | undefined;
  constructor(intent: { id: string; expiresAt?: number; createdAt: number }) {
    super(
      "HERALD_DELIVERY_EXPIRED",
      `intent ${intent.id} expired before it could be sent (maxAgeMs ${
        intent.expiresAt === undefined ? "?" : intent.expiresAt - intent.createdAt
      } ms passed); nothing was sent`,
    );
    this.intentId = intent.id;
    this.expiresAt = intent.expiresAt;
  }
}

/**
 * The message is durable but not delivered yet when the caller stopped waiting: a retry is
 * scheduled, it waits behind an earlier message to the same chat, or it is held for an
 * operator (`unknown_after_send`). It will be delivered (or failed) by the delivery worker, or
 * — when held — once an operator decides (`herald queue retry | cancel`).
 */
export class DeliveryPendingError extends HeraldError {
  readonly intent: DurableSendIntent;
  /** How long the caller actually waited for the receipt, in ms (0 when it returned at once). */
  readonly waitedMs: number;
  /**
   * @param waitedMs - the time actually spent waiting, in ms — not the `waitMs` limit: a held
   *   intent returns at once.
   */
  constructor(intent: DurableSendIntent, waitedMs: number) {
    const held = isHeldForOperator(intent);
    const state = held
      ? "held for an operator (its send outcome is unknown)"
      : `still ${intent.status}${waitedMs > 0 ? ` after waiting ${waitedMs} ms` : ""}`;
    super(
      "HERALD_DELIVERY_PENDING",
      `intent ${intent.id} is ${state}${
        intent.failure ? ` (last failure: ${intent.failure.kind}: ${intent.failure.message})` : ""
      }; ${
        held
          ? `it stays stored: \`herald queue retry ${intent.id}\` or \`herald queue cancel ${intent.id}\` decides`
          : "it stays queued and the delivery worker will finish it"
      }`,
    );
    this.intent = intent;
    this.waitedMs = Math.max(0, waitedMs);
  }
}

/**
 * An idempotency key was reused for another operation or another payload (DESIGN §3 "Keys"):
 * returning the first intent's receipt would report something that did not happen (an edit or
 * delete that changed nothing, a reply with other text). Nothing is sent. Use a key derived
 * from what caused this operation, or omit it (default keys are namespaced by operation,
 * channel and account).
 */
export class IdempotencyConflictError extends HeraldError {
  readonly idempotencyKey: string;
  /** Id of the intent that holds the key. */
  readonly intentId: string;
  /** What differs: `operation`, `channel`, `accountId`, `target`, or `message.<field>`. */
  readonly field: string;
  constructor(idempotencyKey: string, intentId: string, field: string, detail: string) {
    super(
      "HERALD_IDEMPOTENCY_CONFLICT",
      `idempotency key "${idempotencyKey}" is already used by intent ${intentId} for a different request (${field}: ${detail}); use a key per operation, or omit it for the default`,
    );
    this.idempotencyKey = idempotencyKey;
    this.intentId = intentId;
    this.field = field;
  }
}

export { UnknownChannelError } from "../errors.ts";
