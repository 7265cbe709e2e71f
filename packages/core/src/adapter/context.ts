/**
 * The context core hands an adapter for each platform call (seed "Send context").
 *
 * @module
 */
import type { HeraldLogger } from "../logger.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { RateLimitFeedback } from "../message/rateLimit.ts";
import type { MessageReceipt } from "../message/receipt.ts";

/** What core hands an adapter for one platform call of one intent. */
export type MessageSendContext = {
  /** Id of the durable intent (absent for non-durable sends). */
  intentId?: string;
  channel: string;
  accountId?: string;
  message: ChannelMessage;
  /** Attempt number of this delivery, from 1. */
  attempt: number;
  /** The intent's idempotency key. */
  idempotencyKey: string;
  /**
   * The key of this platform call (DESIGN §3 "Keys"): unique per platform operation — each unit
   * of a send or edit, each deleted part, each live preview edit — and stable across retries of
   * that operation (a replay after `maybe_sent` sends the same key). For units of an intent it is
   * `${idempotencyKey}#${unit.index}` (`unitIdempotencyKey`). Adapters with native idempotency
   * (Discord nonce, Matrix txnId, Google Chat requestId) send it, shortened to the platform's
   * alphabet and length with the SDK's `platformKey`, so a replay is deduplicated.
   */
  unitIdempotencyKey: string;
  /** Receipt parts that already landed for this intent (recovery, retries). */
  previousReceipt?: MessageReceipt;
  /** Aborted on shutdown or when the attempt is abandoned. */
  signal: AbortSignal;
  log: HeraldLogger;
  /**
   * Reports what the platform's response said about this call's rate-limit bucket (header
   * feedback: `remaining`, `resetAfterMs` in ms, `bucket`). Call it after any response, success
   * or error, before returning or throwing; the scheduler then holds this route's next calls
   * (durable sends and live previews alike) once the bucket is spent. Absent when the caller
   * has no scheduler (direct unit tests of an adapter).
   */
  reportRateLimit?(feedback: RateLimitFeedback): void;
};
