/**
 * The threaded activity log (DESIGN §7; seed `threaded-activity-log.md`): the pure formatter,
 * condenser and router, and the `ActivityLogForwarder` any thread-capable channel reuses.
 *
 * @module
 */
export {
  ACTIVITY_LOG_DEFAULTS,
  ActivityLogForwarder,
  type ActivityLogRuntime,
} from "./ActivityLogForwarder.ts";
export {
  condenseTurnLog,
  DEFAULT_MAX_LOG_MESSAGE_CHARS,
  droppedMarker,
  LOG_CONTINUES_MARKER,
} from "./condense.ts";
export {
  activityBody,
  DEFAULT_MAX_TOOL_PREVIEW,
  type FormatTurnLogOptions,
  formatTurnLogEntry,
  renderTurnLogLine,
  TRUNCATED_MARKER,
  truncateText,
} from "./format.ts";
export { routeMessage } from "./route.ts";
export type * from "./types.ts";
