/**
 * The delivery engine's events (metrics, logs, tests): one listener set per runtime, on
 * `DeliveryDeps.events`, so that every path that settles an intent — the worker, `runtime.send`,
 * a live final — reports to the same listeners (`DeliveryWorker.on`).
 *
 * @module
 */
import type { ReceiptConflictDetail } from "../message/failure.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import type { RecoveryReport } from "./recovery.ts";

/** Events the delivery engine emits for observers (metrics, logs, tests). */
export type DeliveryEvent =
  | { type: "settled"; intent: DurableSendIntent; durationMs: number }
  | { type: "recovered"; report: RecoveryReport }
  | { type: "error"; intentId?: string; error: unknown }
  /**
   * The platform answered a unit with a message id another unit already holds (CASES C40): the
   * intent (as stored after it) is held as `unknown_after_send` with `failure.reason`
   * `"receipt_conflict"`. The gateway counts it in `herald_receipt_conflicts_total`.
   */
  | { type: "receipt_conflict"; intent: DurableSendIntent; conflict: ReceiptConflictDetail };

/** A set of listeners of {@link DeliveryEvent}s. */
export class DeliveryEvents {
  readonly #listeners = new Set<(event: DeliveryEvent) => void>();

  /** Subscribes. @returns an unsubscribe function. */
  on(listener: (event: DeliveryEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener. */
  emit(event: DeliveryEvent): void {
    for (const l of this.#listeners) l(event);
  }
}
