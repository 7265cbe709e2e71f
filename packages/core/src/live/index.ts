/**
 * Live messages: previews, block streaming, progress lines, native streams and typing
 * indicators (DESIGN §6).
 *
 * @module
 */
export type * from "../adapter/live.ts";
export { unshownStreamText } from "../adapter/live.ts";
export { LiveSessionBusyError, LiveSessionEndedError } from "./errors.ts";
export { LiveSession } from "./LiveSession.ts";
export { resolveLiveMode } from "./mode.ts";
export {
  isLiveRecord,
  LIVE_RECORD_TAG,
  type LivePhase,
  type LivePreview,
  type LiveRecord,
} from "./record.ts";
export { splitBlocks } from "./segments.ts";
export type * from "./types.ts";
export { DEFAULT_TYPING_TTL_MS } from "./typing.ts";
