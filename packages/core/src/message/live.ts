/**
 * Live message state, saved on the intent so recovery knows a preview exists
 * (seed `message-lifecycle.md`, "Live context").
 *
 * @module
 */
import type { MessageReceipt } from "./receipt.ts";

/** State of a preview / progress / native stream. */
export type LiveMessageState = {
  mode: "partial" | "block" | "progress" | "native";
  /** Receipt of the visible preview message(s); absent when the transport returned no id. */
  receipt?: MessageReceipt;
  /** Epoch milliseconds the preview became visible. */
  visibleSince?: number;
  canFinalizeInPlace: boolean;
  /** Hash of the last rendered preview, to skip unchanged edits. */
  lastRenderedHash?: string;
  /** Age in milliseconds after which the preview is stale and the final is sent fresh. */
  staleAfterMs?: number;
  /** Text of each frozen preview message, in order (long streams continue in a new preview). */
  frozen?: Array<{ platformMessageId?: string; text: string }>;
};
