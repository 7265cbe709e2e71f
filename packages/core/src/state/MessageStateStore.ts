/**
 * The one persistence interface of herald (DESIGN §3). Core logic never touches SQL; both
 * `SqliteStateStore` and `PostgresStateStore` implement this and pass the conformance suite of
 * `@herald/core/testing`.
 *
 * Every method is atomic: it either fully applies or leaves no trace. Methods that take `now`
 * compare times against it (epoch milliseconds) so tests and recovery can use their own clock.
 *
 * @module
 */
import type { DurableSendIntent, IntentStatus } from "../message/intent.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import type { SharedLimitStore } from "./sharedLimits.ts";
import type {
  DeadLetter,
  DedupeAcquireResult,
  DedupeKey,
  DedupeRecord,
  EnqueueResult,
  IntentPatch,
  IntentQuery,
  IntentStatusRow,
  IntentTransition,
  LeaseRequest,
  LedgerEvent,
  NewDeadLetter,
  NewLedgerEvent,
  NewSendIntent,
  ReceiptRecord,
  RecoveryQuery,
  WatermarkKey,
} from "./types.ts";

export interface MessageStateStore {
  /**
   * Rate-limit buckets and loop-guard counts shared by every process on this store, when the
   * store can share them (`PostgresStateStore`); absent: they stay in process memory (SQLite).
   */
  readonly sharedLimits?: SharedLimitStore | undefined;
  /**
   * True when writes called in the same event-loop tick commit in one transaction, in call
   * order, each rejected alone when it fails (SQLite's group commit, in-thread or in its worker
   * thread). `runtime.send`'s folded first attempt (enqueue and `sending` in one commit) is only
   * tried on such a store; absent or false: every send takes the three steps.
   */
  readonly groupsWritesPerTick?: boolean | undefined;
  // ── send intents ────────────────────────────────────────────────────────────
  /**
   * Enqueues intents in one transaction. An intent whose idempotency key already exists is not
   * written again: the existing intent (with its receipt, if sent) is returned, `created: false`.
   */
  enqueueIntents(intents: readonly NewSendIntent[]): Promise<EnqueueResult[]>;
  /** Reads one intent by id. */
  getIntent(id: string): Promise<DurableSendIntent | undefined>;
  /**
   * Reads the status columns of the intents of `ids` that exist ({@link IntentStatusRow}, in no
   * particular order; unknown ids are left out), without reading or parsing whole rows. The
   * delivery worker polls it, every 500 ms, for every intent a `runtime.send` waits on that
   * another writer may settle (`delivery/settlePoll.ts`). Optional: without it the worker reads
   * each waited-on intent with `getIntent`.
   */
  getIntentStatuses?(ids: readonly string[]): Promise<IntentStatusRow[]>;
  /** Reads one intent by idempotency key. */
  getIntentByIdempotencyKey(idempotencyKey: string): Promise<DurableSendIntent | undefined>;
  /**
   * Leases due intents, oldest due first: status in `statuses`, `nextAttemptAt` ≤ now, no live
   * lease, and no earlier unsent intent with the same ordering key. Sets `leaseOwner` and
   * `leaseExpiresAt`; the status is unchanged. Two callers never get the same intent while its
   * lease is live.
   */
  leaseDueIntents(request: LeaseRequest): Promise<DurableSendIntent[]>;
  /** Extends a lease held by `owner`. @returns false when the lease was lost. */
  renewLease(id: string, owner: string, expiresAt: number): Promise<boolean>;
  /** Gives a lease back without a status change. @returns false when `owner` did not hold it. */
  releaseLease(id: string, owner: string): Promise<boolean>;
  /**
   * Applies status transitions atomically (all or none), each a compare-and-set validated by the
   * status machine. Receipt and partial-receipt platform ids are indexed in the outbound registry
   * in the same transaction.
   *
   * @throws IllegalTransitionError when the machine forbids a transition.
   * @throws IntentConflictError when an intent is not in `from` or `owner` does not hold it.
   */
  transitionIntents(transitions: readonly IntentTransition[]): Promise<DurableSendIntent[]>;
  /**
   * Changes fields without a status change (live state, partial receipts, batch), guarded by
   * `expect`.
   *
   * @throws IntentConflictError when the guard fails.
   */
  updateIntent(
    id: string,
    expect: { status: IntentStatus; owner?: string },
    patch: IntentPatch,
  ): Promise<DurableSendIntent>;
  /** Lists intents by filter, in `seq` order. */
  listIntents(query?: IntentQuery): Promise<DurableSendIntent[]>;
  /**
   * Reads one page of recovery candidates ([H25], {@link RecoveryQuery}): the leased unsent
   * intents, or the `pending` ones scheduled beyond a bound, through indexes kept for it, so that
   * a recovery pass costs the intents it may repair, not the pending backlog (DESIGN §12).
   */
  listRecoveryCandidates(query: RecoveryQuery): Promise<DurableSendIntent[]>;
  /** Counts intents per status (all statuses present, zero when none), optionally per channel. */
  countIntents(filter?: { channel?: string }): Promise<Record<IntentStatus, number>>;
  /**
   * Deletes terminal intents (`sent`, `failed`, `cancelled`, `expired`) last updated before `before`, at
   * most `limit` per call, with their registry rows. Until purged they are idempotency tombstones.
   *
   * @returns how many intents were deleted.
   */
  purgeTerminalIntents(options: { before: number; limit: number }): Promise<number>;

  // ── outbound registry ───────────────────────────────────────────────────────
  /**
   * Finds the intent that produced a platform message id (echo recognition, edits). A
   * platform message id names its conversation (`<chat>:<id>`, `spaces/S/messages/M`), so
   * `anyAccount: true` looks the message up whichever account of the channel sent it —
   * ignoring `accountId` — for recognising another herald bot's output in a store the bots
   * share (DESIGN §5, CASES C56). At most one row matches in practice (one platform message
   * has one sender); should several, the first account in id order wins.
   */
  lookupReceipt(key: {
    channel: string;
    accountId?: string;
    platformMessageId: string;
    anyAccount?: boolean;
  }): Promise<(ReceiptRecord & { receipt?: MessageReceipt }) | undefined>;

  // ── inbound dedupe leases ───────────────────────────────────────────────────
  /**
   * Takes the processing lease of an inbound event. Acquired when no record exists, the
   * in-flight lease expired, or a `done` record outlived its TTL.
   */
  acquireDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; leaseMs: number },
  ): Promise<DedupeAcquireResult>;
  /** Extends an in-flight lease. @returns false when `owner` no longer holds it. */
  renewDedupe(key: DedupeKey, owner: string, leaseExpiresAt: number): Promise<boolean>;
  /**
   * Marks the event processed; kept for `ttlMs` (at least {@link DEDUPE_MIN_TTL_MS}).
   * @returns false when `owner` no longer holds the lease.
   */
  completeDedupe(
    key: DedupeKey,
    options: { owner: string; now: number; ttlMs?: number; meta?: unknown },
  ): Promise<boolean>;
  /** Releases an in-flight lease after a failure so a redelivery is processed. */
  releaseDedupe(key: DedupeKey, owner: string): Promise<boolean>;
  /** Reads a dedupe record. */
  getDedupe(key: DedupeKey): Promise<DedupeRecord | undefined>;
  /** Deletes `done` records past their TTL, at most `limit`. @returns how many. */
  purgeDedupe(options: { now: number; limit: number }): Promise<number>;

  // ── polling watermarks ──────────────────────────────────────────────────────
  getWatermark(key: WatermarkKey): Promise<string | undefined>;
  setWatermark(key: WatermarkKey, value: string): Promise<void>;

  // ── turn ledger ─────────────────────────────────────────────────────────────
  /** Appends events to conversations in one transaction; assigns each the next `seq`. */
  appendLedger(events: readonly NewLedgerEvent[]): Promise<LedgerEvent[]>;
  /** Reads a conversation's events in `seq` order, `fromSeq`..`toSeq` inclusive. */
  readLedger(query: {
    conversation: string;
    fromSeq?: number;
    toSeq?: number;
    limit?: number;
  }): Promise<LedgerEvent[]>;

  // ── dead letters ────────────────────────────────────────────────────────────
  putDeadLetter(letter: NewDeadLetter): Promise<DeadLetter>;
  getDeadLetter(id: string): Promise<DeadLetter | undefined>;
  listDeadLetters(query?: {
    channel?: string;
    status?: DeadLetter["status"];
    limit?: number;
  }): Promise<DeadLetter[]>;
  /** Records a replay attempt or a discard. */
  markDeadLetter(id: string, status: "replayed" | "discarded", now: number): Promise<void>;

  // ── lifecycle ───────────────────────────────────────────────────────────────
  /** The schema version of the open database. */
  schemaVersion(): Promise<number>;
  /** Closes the store; later calls throw `StoreUnavailableError`. */
  close(): Promise<void>;
}
