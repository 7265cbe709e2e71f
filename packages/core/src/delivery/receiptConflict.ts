/**
 * A platform message id answered for a unit when another unit already holds it as its receipt
 * (DESIGN §12 "Receipt ids are unique"; CASES C40: a misbehaving server, a reused transaction
 * id, a proxy cache, a reconcile lookup that found someone else's message). The store refuses
 * the receipt (`ReceiptConflictError`, nothing written); here the intent is held as
 * `unknown_after_send` for an operator, with `failure.reason` `"receipt_conflict"`, and the
 * runtime's listeners are told (`herald_receipt_conflicts_total`). Never `sent` with another
 * unit's id: its text may never have shown.
 *
 * @module
 */
import type { DeliveryFailure } from "../message/failure.ts";
import { type DurableSendIntent, HELD_FOR_OPERATOR_AT } from "../message/intent.ts";
import { ReceiptConflictError } from "../state/errors.ts";
import type { IntentTransition } from "../state/types.ts";
import type { DeliveryDeps } from "./deps.ts";

/** Statuses a receipt is written from, as the holding write finds the intent. */
export type ReceiptWriteStatus = "pending" | "sending" | "unknown_after_send";

/** The failure a receipt conflict is held with. */
export function receiptConflictFailure(
  error: ReceiptConflictError,
  now: number,
  retryHint: string,
): DeliveryFailure {
  const holder =
    error.heldByIntentId === error.intentId
      ? `its own unit ${error.heldByPartIndex}`
      : `intent ${error.heldByIntentId}`;
  return {
    kind: "conflict",
    evidence: "maybe_sent",
    reason: "receipt_conflict",
    receiptConflict: error.detail(),
    message: `receipt_conflict: the platform answered unit ${error.partIndex} with message ${error.platformMessageId}, already the receipt of ${holder}; this unit may never have shown — held for an operator: check the chat, then ${retryHint}`,
    at: now,
  };
}

/**
 * Holds `intent` (leased by `deps.owner`, in `from`) as `unknown_after_send` for an operator
 * after its receipt was refused. The parts saved before (`partialReceipt`, their ids unique)
 * stay as stored; the refused part is not stored, so a retry sends it again. A `pending` intent (between two parts) passes through `sending` in the same
 * transaction: the machine has no `pending → unknown_after_send`.
 *
 * @returns the intent as stored.
 */
export async function holdReceiptConflict(
  deps: DeliveryDeps,
  intent: DurableSendIntent,
  from: ReceiptWriteStatus,
  error: ReceiptConflictError,
): Promise<DurableSendIntent> {
  const failure = receiptConflictFailure(
    error,
    deps.clock(),
    `\`herald queue retry ${intent.id}\` (sends the unit again) or \`cancel\``,
  );
  const owner = deps.owner;
  const patch = { failure, nextAttemptAt: HELD_FOR_OPERATOR_AT, lease: "release" as const };
  let held: DurableSendIntent;
  if (from === "unknown_after_send") {
    // Already there (a reconcile's receipt was refused): only the failure and the hold change.
    held = await deps.store.updateIntent(intent.id, { status: from, owner }, patch);
  } else {
    const steps: IntentTransition[] =
      from === "pending" ? [{ id: intent.id, from: "pending", to: "sending", owner }] : [];
    steps.push({ id: intent.id, from: "sending", to: "unknown_after_send", owner, patch });
    held = (await deps.store.transitionIntents(steps)).at(-1) as DurableSendIntent;
  }
  deps.logger.error(
    {
      intentId: intent.id,
      channel: intent.channel,
      status: "unknown_after_send",
      held: true,
      reason: "receipt_conflict",
      platformMessageId: error.platformMessageId,
      heldByIntentId: error.heldByIntentId,
    },
    failure.message,
  );
  deps.events?.emit({ type: "receipt_conflict", intent: held, conflict: error.detail() });
  return held;
}

/** True for the store's refusal of a receipt id held by another unit. */
export function isReceiptConflict(error: unknown): error is ReceiptConflictError {
  return error instanceof ReceiptConflictError;
}
