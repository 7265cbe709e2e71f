/**
 * Durable receive (DESIGN §5; seed `message-lifecycle.md`, "Receive context"): the receive
 * runtime, the polling watermark tracker, the receive adapter types and the payload helpers.
 *
 * @module
 */
export type * from "../adapter/receive.ts";
export {
  type CursorBatch,
  type CursorItem,
  type CursorTracker,
  type CursorTrackerOptions,
  createCursorTracker,
} from "./cursor.ts";
export * from "./errors.ts";
export type { LoopGuardOptions } from "./LoopGuard.ts";
export type { InboundPolicy, InboundPolicyOverride } from "./policy.ts";
export { createReceiveRuntime } from "./ReceiveRuntime.ts";
export type { InboundRetryOptions, PendingInbound } from "./retries.ts";
export {
  createReceiverSinkFor,
  type ReceiverSink,
  type ReceiverSinkOptions,
} from "./sink.ts";
export type * from "./types.ts";
export { ignore, joinIssuePath, parseInbound } from "./validate.ts";
export {
  createWatermarkTracker,
  parseWatermarkId,
  type WatermarkId,
  type WatermarkRestart,
  type WatermarkTracker,
  type WatermarkTrackerOptions,
} from "./watermark.ts";
