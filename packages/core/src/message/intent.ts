/**
 * Durable send intents and their status machine (DESIGN §3; seed `message-lifecycle.md`,
 * "Internal storage").
 *
 * ```
 * pending ──lease──▶ sending ──platform ok──▶ committing ──receipt saved──▶ sent
 *    ▲                 │  │                                                ▲
 *    │  not dispatched │  └─ maybe sent (crash, timeout, reset, 5xx) ─▶ unknown_after_send
 *    └─ retryable ◀────┘                                     reconcile: sent ─┘ | not_sent ─▶ pending
 * failed (terminal kind or attempts exhausted) · cancelled (operator / live supersede)
 * pending ──older than maxAgeMs, nothing of it visible──▶ expired
 * ```
 *
 * @module
 */
import { HeraldError } from "../errors.ts";
import type { RenderedMessageBatch } from "./batch.ts";
import type { DeliveryFailure } from "./failure.ts";
import type { LiveMessageState } from "./live.ts";
import type { ChannelMessage } from "./message.ts";
import type { MessageReceipt } from "./receipt.ts";

/** Where an intent is in its lifecycle. */
export type IntentStatus =
  | "pending"
  | "sending"
  | "committing"
  | "unknown_after_send"
  | "sent"
  | "failed"
  | "cancelled"
  | "expired";

/** Every {@link IntentStatus}. */
export const INTENT_STATUSES: readonly IntentStatus[] = [
  "pending",
  "sending",
  "committing",
  "unknown_after_send",
  "sent",
  "failed",
  "cancelled",
  "expired",
];

/** Statuses in which an intent still blocks later intents with the same ordering key. */
export const UNSENT_STATUSES: readonly IntentStatus[] = [
  "pending",
  "sending",
  "committing",
  "unknown_after_send",
];

/** Terminal statuses: the intent is an idempotency tombstone until purged. */
export const TERMINAL_STATUSES: readonly IntentStatus[] = [
  "sent",
  "failed",
  "cancelled",
  "expired",
];

/**
 * `nextAttemptAt` of an `unknown_after_send` intent held for an operator (`unknownSendPolicy:
 * "hold"`): far beyond any real schedule, so the worker never picks it up by itself.
 */
export const HELD_FOR_OPERATOR_AT = 8_640_000_000_000_000;

/** True when an intent waits for an operator (`herald queue retry` / `cancel`). */
export function isHeldForOperator(
  intent: Pick<DurableSendIntent, "status" | "nextAttemptAt">,
): boolean {
  return intent.status === "unknown_after_send" && intent.nextAttemptAt === HELD_FOR_OPERATOR_AT;
}

/** What the intent does on the platform. */
export type IntentOperation =
  | { kind: "send" }
  | { kind: "edit"; receipt: MessageReceipt }
  | { kind: "delete"; receipt: MessageReceipt }
  | ReactionOperation;

/**
 * Adds or removes one reaction ([H23]): one unit, delivered by `send.react`. Idempotent by
 * nature: a replay of an add never removes it (the adapter maps "already reacted" to success).
 */
export type ReactionOperation = {
  kind: "reaction";
  /** Platform id of the reacted-to message. */
  messageId: string;
  /** The emoji (unicode, or the platform's name for it). */
  emoji: string;
  /** `true`: remove the reaction. @defaultValue false */
  remove?: boolean;
};

/** A durable outbound message: the unit the queue stores, leases, retries and recovers. */
export type DurableSendIntent = {
  id: string;
  /** Same key → same intent: enqueueing it again returns this intent and its receipt. */
  idempotencyKey: string;
  channel: string;
  accountId?: string;
  message: ChannelMessage;
  operation: IntentOperation;
  /**
   * Intents with one ordering key (channel, account, target, thread) are delivered in enqueue
   * order: a later one is not leased while an earlier one is unsent.
   */
  orderingKey: string;
  /** Monotonic enqueue sequence assigned by the store; orders intents within an ordering key. */
  seq: number;
  batch?: RenderedMessageBatch;
  liveState?: LiveMessageState;
  status: IntentStatus;
  /** Delivery attempts made so far. Recovery does not count as an attempt. */
  attempt: number;
  /** Epoch ms before which the intent is not due. Absent = due now. */
  nextAttemptAt?: number;
  /** Worker id holding the lease, while leased. */
  leaseOwner?: string;
  /** Epoch ms when the lease lapses; an expired lease may be taken by another worker. */
  leaseExpiresAt?: number;
  /** The committed receipt (status `sent`), or the raw receipt while `committing`. */
  receipt?: MessageReceipt;
  /** Receipts of the units that already landed (per unit index), before the whole batch did. */
  partialReceipt?: MessageReceipt;
  /**
   * Epoch ms of the first platform call of each unit, keyed by unit index (`"0"`, `"1"`, …).
   * Written with `sending` (before any I/O) and with each landed part (for the next unit); a
   * later attempt never moves it. A native idempotency key is trusted only within
   * `capabilities.delivery.idempotencyWindowMs` of it (DESIGN §3 "Replay gate").
   */
  firstDispatchAt?: Record<string, number>;
  failure?: DeliveryFailure;
  /** Root turn id of the inbound turn that produced this message. */
  turnId?: string;
  /**
   * Epoch ms after which the intent is not sent: `createdAt + maxAgeMs` ([H25], C55). An attempt
   * that finds it past this ends it `expired`, unless part of it is already visible.
   */
  expiresAt?: number;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms. */
  updatedAt: number;
};

/** Thrown by {@link assertTransition} for a transition the machine does not allow. */
export class IllegalTransitionError extends HeraldError {
  readonly from: IntentStatus;
  readonly to: IntentStatus;
  constructor(from: IntentStatus, to: IntentStatus) {
    super(
      "HERALD_ILLEGAL_TRANSITION",
      `illegal intent transition ${from} → ${to}; allowed from ${from}: ${
        ALLOWED[from].join(", ") || "(none: terminal)"
      }`,
    );
    this.from = from;
    this.to = to;
  }
}

const ALLOWED: Readonly<Record<IntentStatus, readonly IntentStatus[]>> = {
  // lease + write `sending` before I/O; a render failure or an operator cancel.
  // an attempt found it older than its `maxAgeMs` with nothing of it visible ([H25], C55).
  pending: ["sending", "failed", "cancelled", "expired"],
  // platform ok; not dispatched + retryable; maybe sent; terminal failure; live supersede.
  sending: ["committing", "pending", "unknown_after_send", "failed", "cancelled"],
  // receipt saved.
  committing: ["sent"],
  // reconcile: sent → commit; not_sent (or at_least_once replay) → pending; operator gives up.
  unknown_after_send: ["committing", "sent", "pending", "failed", "cancelled"],
  sent: [],
  // operator retry (`herald queue retry`); an operator closes it for good (`queue cancel`).
  failed: ["pending", "cancelled"],
  cancelled: [],
  // a reply that came too late is never sent; an operator may still send it (`queue retry`).
  expired: ["pending"],
};

/**
 * The status machine as a pure function.
 *
 * @returns true when `from → to` is legal.
 */
export function canTransition(from: IntentStatus, to: IntentStatus): boolean {
  return ALLOWED[from].includes(to);
}

/**
 * Validates a transition.
 *
 * @throws {@link IllegalTransitionError} naming `from → to` when the machine does not allow it.
 */
export function assertTransition(from: IntentStatus, to: IntentStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

/** The statuses reachable from `from` in one step. */
export function nextStatuses(from: IntentStatus): readonly IntentStatus[] {
  return ALLOWED[from];
}

/** What an operator may do to an intent: `herald queue retry|cancel` and the console's buttons. */
export type OperatorAction = "retry" | "cancel";

/** Every {@link OperatorAction}, in the order surfaces show them. */
export const OPERATOR_ACTIONS: readonly OperatorAction[] = ["retry", "cancel"];

/** The status each {@link OperatorAction} moves an intent to. */
export const OPERATOR_ACTION_TARGET: Readonly<Record<OperatorAction, IntentStatus>> = {
  retry: "pending",
  cancel: "cancelled",
};

/**
 * Statuses in which a worker holds the intent mid-call (its lease guards the platform call and
 * the receipt commit): an operator never moves such an intent, even where the machine has an edge
 * for the worker itself (`sending → pending`, `sending → cancelled` on a live supersede).
 */
const WORKER_HELD: readonly IntentStatus[] = ["sending", "committing"];

/**
 * The operator actions the status machine allows from `status` — the one rule every surface
 * (CLI `herald queue retry|cancel`, the console's buttons, the docs' table) offers: an action
 * is offered exactly when its target ({@link OPERATOR_ACTION_TARGET}) is a legal transition from
 * `status` and no worker holds the intent.
 *
 * @example
 * allowedOperations("failed"); // ["retry", "cancel"]
 * allowedOperations("sent"); // []
 */
export function allowedOperations(status: IntentStatus): readonly OperatorAction[] {
  if (WORKER_HELD.includes(status)) return [];
  return OPERATOR_ACTIONS.filter((action) => canTransition(status, OPERATOR_ACTION_TARGET[action]));
}

/** The statuses from which an operator may take `action` ({@link allowedOperations}). */
export function statusesAllowing(action: OperatorAction): readonly IntentStatus[] {
  return INTENT_STATUSES.filter((status) => allowedOperations(status).includes(action));
}

/**
 * The ordering key for a message: channel, account, target and thread. Intents sharing it are
 * delivered in enqueue order.
 */
export function orderingKeyOf(message: ChannelMessage): string {
  const thread =
    message.target.threadId ??
    (message.relation?.kind === "reply" ? message.relation.threadId : undefined) ??
    "";
  return JSON.stringify([message.channel, message.accountId ?? "", message.target.id, thread]);
}
