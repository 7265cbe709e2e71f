/**
 * Rendered batches: everything one logical message projects to on a platform (all text
 * chunks, media with caption fallbacks, cards), delivered under one durable intent
 * (seed `message-lifecycle.md`, "Send context").
 *
 * @module
 */
import type { MessagePartKind } from "./receipt.ts";

/** One platform call's worth of content. `payload` is adapter-defined JSON. */
export type RenderedMessageUnit = {
  /** Position in the batch, from 0. Receipts refer to units by this index. */
  index: number;
  kind: MessagePartKind;
  payload: unknown;
  /** A required unit must land; an optional one may be skipped under `best_effort_parts`. */
  required: boolean;
};

/**
 * How a batch behaves when some units fail:
 * - `all_or_retry_remaining`: the intent is sent only when every required unit landed; a
 *   failure retries the missing units only.
 * - `best_effort_parts`: the intent is sent once every unit was tried; failed optional units
 *   are recorded and skipped.
 */
export type BatchAtomicity = "all_or_retry_remaining" | "best_effort_parts";

/** All units of one logical message, with the idempotency key that covers them. */
export type RenderedMessageBatch = {
  units: RenderedMessageUnit[];
  atomicity: BatchAtomicity;
  idempotencyKey: string;
};
