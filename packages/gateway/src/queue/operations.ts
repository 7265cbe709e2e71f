/**
 * The operator's queue operations, shared by `herald queue …` (CLI) and the web console: what
 * may be retried or cancelled (derived from core's status machine, `allowedOperations`), how an
 * intent is shown (secrets redacted, DESIGN §11) and the bulk status moves.
 *
 * @module
 */
import {
  type DurableSendIntent,
  type IntentStatus,
  type MessageStateStore,
  OPERATOR_ACTION_TARGET,
  type OperatorAction,
  statusesAllowing,
} from "@herald/core";
import { displayStatus } from "./queueRows.ts";

/** Statuses an operator may put back to `pending` (due now): the status machine's rule. */
export const RETRYABLE: readonly IntentStatus[] = statusesAllowing("retry");
/** Statuses an operator may cancel: the status machine's rule. */
export const CANCELLABLE: readonly IntentStatus[] = statusesAllowing("cancel");

/**
 * An intent as `herald queue show` prints it and the console renders it: the stored intent with
 * its display status, JSON with every secret the gateway read replaced by `[redacted]`.
 */
export function intentJson(intent: DurableSendIntent, redact: (text: string) => string): string {
  return redact(JSON.stringify({ ...intent, status: displayStatus(intent) }, null, 2));
}

/**
 * A redacted deep copy of any stored value (an intent, a dead letter, a ledger node): every
 * string in it passed through `redact` via its JSON form, so nothing rendered from it can carry
 * a secret.
 */
export function redacted<T>(value: T, redact: (text: string) => string): T {
  if (value === undefined) return value;
  return JSON.parse(redact(JSON.stringify(value))) as T;
}

/** What a bulk operation did. */
export type BulkResult = { changed: string[]; skipped: Array<{ id: string; reason: string }> };

/**
 * Moves each intent of `ids` to `to` when its status is one of `allowed` (a retry also drops
 * the schedule and the lease so it is due now); reports the ones it skipped and why.
 *
 * @param onProgress - called with the count done after each id.
 */
export async function moveIntents(
  store: MessageStateStore,
  ids: readonly string[],
  allowed: readonly IntentStatus[],
  to: IntentStatus,
  onProgress: (done: number) => void = () => {},
): Promise<BulkResult> {
  const result: BulkResult = { changed: [], skipped: [] };
  for (const [n, id] of ids.entries()) {
    const intent = await store.getIntent(id);
    if (!intent) result.skipped.push({ id, reason: "no such intent" });
    else if (!allowed.includes(intent.status)) {
      result.skipped.push({
        id,
        reason: `status is ${intent.status}; only ${allowed.join(" / ")} can be moved to ${to}`,
      });
    } else {
      try {
        await store.transitionIntents([
          {
            id,
            from: intent.status,
            to,
            // An operator's retry sends it now, whatever its age (`expired` included).
            patch:
              to === "pending" ? { nextAttemptAt: null, lease: "release", expiresAt: null } : {},
          },
        ]);
        result.changed.push(id);
      } catch (error) {
        result.skipped.push({ id, reason: (error as Error).message });
      }
    }
    onProgress(n + 1);
  }
  return result;
}

/**
 * Applies an operator action to each intent of `ids` whose status allows it (core's
 * `allowedOperations`); reports the others as skipped with the reason.
 */
export function applyOperation(
  store: MessageStateStore,
  action: OperatorAction,
  ids: readonly string[],
  onProgress?: (done: number) => void,
): Promise<BulkResult> {
  return moveIntents(
    store,
    ids,
    statusesAllowing(action),
    OPERATOR_ACTION_TARGET[action],
    onProgress,
  );
}

/** Puts failed or held intents back to `pending` (due now). */
export function retryIntents(
  store: MessageStateStore,
  ids: readonly string[],
  onProgress?: (done: number) => void,
): Promise<BulkResult> {
  return applyOperation(store, "retry", ids, onProgress);
}

/** Cancels pending, held or failed intents: nothing more is sent. */
export function cancelIntents(
  store: MessageStateStore,
  ids: readonly string[],
  onProgress?: (done: number) => void,
): Promise<BulkResult> {
  return applyOperation(store, "cancel", ids, onProgress);
}
