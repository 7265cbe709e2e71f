/**
 * Input and output shapes of {@link MessageStateStore}.
 *
 * @module
 */
import type { RenderedMessageBatch } from "../message/batch.ts";
import type { DeliveryFailure } from "../message/failure.ts";
import type { DurableSendIntent, IntentOperation, IntentStatus } from "../message/intent.ts";
import type { LiveMessageState } from "../message/live.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageOrigin } from "../message/origin.ts";
import type { MessageReceipt } from "../message/receipt.ts";

/** A new intent. The store assigns `seq`, timestamps and (unless given) `id`; status is `pending`. */
export type NewSendIntent = {
  id?: string;
  idempotencyKey: string;
  message: ChannelMessage;
  /** @defaultValue `{ kind: "send" }` */
  operation?: IntentOperation;
  /** @defaultValue `orderingKeyOf(message)` */
  orderingKey?: string;
  batch?: RenderedMessageBatch;
  liveState?: LiveMessageState;
  turnId?: string;
  /** Epoch ms; absent = due now. */
  nextAttemptAt?: number;
  /**
   * The intent is not sent once it is older than this (ms from its creation): an attempt that
   * finds it past `createdAt + maxAgeMs` ends it `expired` instead ([H25], C55; the
   * exceptions are in `delivery/expiry.ts`). Stored as `expiresAt`. Absent: no age limit.
   */
  maxAgeMs?: number;
  /**
   * Lease the new intent to `owner` in the same transaction, but only when it is due and no
   * earlier unsent intent shares its ordering key (the inline fast path of `runtime.send`).
   * Ignored for an existing idempotency key.
   */
  claim?: { owner: string; now: number; leaseMs: number };
};

/** Result of an enqueue: the intent and whether this call created it. */
export type EnqueueResult = { intent: DurableSendIntent; created: boolean };

/** Fields a transition or update may change. `null` clears an optional field. */
export type IntentPatch = {
  attempt?: number;
  nextAttemptAt?: number | null;
  failure?: DeliveryFailure | null;
  receipt?: MessageReceipt | null;
  partialReceipt?: MessageReceipt | null;
  /** Replaces the whole map (callers merge: entries are never moved once written). */
  firstDispatchAt?: Record<string, number> | null;
  liveState?: LiveMessageState | null;
  batch?: RenderedMessageBatch | null;
  /** `release` clears the lease; an object sets it. Absent leaves it unchanged. */
  lease?: "release" | { owner: string; expiresAt: number };
  /** Epoch ms after which the intent is not sent (`null`: no age limit, an operator retry). */
  expiresAt?: number | null;
  /**
   * Platform message ids of this patch's `receipt` / `partialReceipt` that are messages another
   * intent of the channel and account already holds in the outbound registry, and that this
   * intent takes as its own without a platform call: a live session's previews that already
   * show the final. Not stored; the registry keeps naming the intent that sent them. Any other
   * id held by another intent is refused (`ReceiptConflictError`). Ids an edit or delete intent
   * targets (its `operation.receipt`) are always the same messages and need not be listed.
   */
  adoptedMessageIds?: readonly string[];
};

/**
 * A compare-and-set status change: applied only when the intent is in `from` (and, when
 * `owner` is given, leased by `owner` with a lease that has not been taken over).
 */
export type IntentTransition = {
  id: string;
  from: IntentStatus;
  to: IntentStatus;
  owner?: string;
  patch?: IntentPatch;
};

/** Ask for due intents to lease. */
export type LeaseRequest = {
  /** Worker id; becomes `leaseOwner`. */
  owner: string;
  /** Epoch ms: due and lease-expiry comparisons use it. */
  now: number;
  /** Lease length in milliseconds. */
  leaseMs: number;
  /** Most intents to lease in this call. */
  limit: number;
  /** Statuses to lease. @defaultValue `["pending"]` */
  statuses?: Array<"pending" | "unknown_after_send">;
  /** Only this channel. */
  channel?: string;
};

/**
 * What a recovery pass reads ([H25], `MessageStateStore.listRecoveryCandidates`): only intents
 * it may have to repair, found through indexes kept for it, so that no pass walks the pending
 * backlog. Each kind is one bounded page; `limit` rows at most.
 * - `leased`: `pending` and `unknown_after_send` intents holding a lease (live or lapsed;
 *   released leases are cleared), in `seq` order after `afterSeq`. A worker's attempts release
 *   their lease when they end, so these are the intents leased right now, and those an earlier
 *   process left leased.
 * - `skewed`: `pending` intents due later than `dueAfter` (epoch ms), earliest due first.
 */
export type RecoveryQuery =
  | { kind: "leased"; afterSeq?: number; limit: number }
  | { kind: "skewed"; dueAfter: number; limit: number };

/** Filter for listing intents (operators, recovery). */
export type IntentQuery = {
  statuses?: IntentStatus[];
  channel?: string;
  /** Only intents whose lease expired before this epoch ms (or that have no lease). */
  leaseExpiredBefore?: number;
  /** Only intents whose `nextAttemptAt` is later than this epoch ms (clock-skew repair). */
  nextAttemptAfter?: number;
  /**
   * Only intents last written (`updatedAt`) later than this epoch ms: the platform calls of
   * the last seconds, which a restarted runtime counts into its rate-limit buckets. Stores
   * answer it from an index on `updated_at`, not a scan of the history.
   */
  updatedAfter?: number;
  /** Keyset pagination: intents with `seq` greater than this. */
  afterSeq?: number;
  /** @defaultValue 100 */
  limit?: number;
};

/**
 * The columns of an intent that say whether it settled (`MessageStateStore.getIntentStatuses`):
 * its status, `nextAttemptAt` (held for an operator: `HELD_FOR_OPERATOR_AT`) and `updatedAt`
 * (epoch ms).
 */
export type IntentStatusRow = Pick<
  DurableSendIntent,
  "id" | "status" | "nextAttemptAt" | "updatedAt"
>;

/** What the outbound registry knows about one platform message id. */
export type ReceiptRecord = {
  channel: string;
  accountId?: string;
  platformMessageId: string;
  intentId: string;
  /** Unit index of the part this id belongs to. */
  partIndex: number;
  origin?: MessageOrigin;
  turnId?: string;
  /** Epoch ms. */
  recordedAt: number;
};

/** Identity of an inbound event for dedupe: the platform *message* identity, not the delivery id. */
export type DedupeKey = { channel: string; accountId?: string; eventId: string };

/** Outcome of trying to take the dedupe lease of an inbound event. */
export type DedupeAcquireResult =
  | { status: "acquired" }
  | { status: "in_flight"; owner: string; leaseExpiresAt: number }
  | { status: "done"; meta?: unknown };

/** Minimum (and default) time a completed dedupe record is kept: 24 hours, in ms. */
export const DEDUPE_MIN_TTL_MS = 24 * 60 * 60 * 1000;

/** A dedupe record, as stored. */
export type DedupeRecord = DedupeKey & {
  status: "in_flight" | "done";
  owner?: string;
  leaseExpiresAt?: number;
  /** Epoch ms after which a `done` record may be purged and the event accepted again. */
  expiresAt?: number;
  meta?: unknown;
};

/** Key of a polling watermark. `source` separates several cursors of one account. */
export type WatermarkKey = { channel: string; accountId?: string; source?: string };

/** One event of the per-conversation turn ledger. */
export type LedgerEvent = {
  conversation: string;
  /** Monotonic per conversation, from 1. */
  seq: number;
  type: string;
  turnId?: string;
  /** Epoch ms. */
  at: number;
  data?: unknown;
};

/** A new ledger event; the store assigns `seq`. */
export type NewLedgerEvent = Omit<LedgerEvent, "seq" | "at"> & { at?: number };

/** An inbound payload that failed to normalize, kept raw so it is never lost. */
export type DeadLetter = {
  id: string;
  channel: string;
  accountId?: string;
  raw: unknown;
  error: { name: string; message: string; code?: string; path?: string };
  status: "new" | "replayed" | "discarded";
  /** Epoch ms. */
  receivedAt: number;
  /** Epoch ms of the last replay attempt. */
  replayedAt?: number;
  replayCount: number;
};

/** A new dead letter; the store assigns `id` (unless given) and status `new`. */
export type NewDeadLetter = Omit<DeadLetter, "id" | "status" | "replayCount" | "replayedAt"> & {
  id?: string;
};
