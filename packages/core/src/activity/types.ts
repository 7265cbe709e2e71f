/**
 * Shapes of the threaded activity log (seed `threaded-activity-log.md`, "Event routing",
 * "Formatting" and "Configuration"; DESIGN §7).
 *
 * @module
 */
import type { LiveTimers } from "../live/types.ts";
import type { HeraldLogger } from "../logger.ts";
import type { TurnMessageRole } from "../turn/types.ts";

/** One line of the activity log, as the formatter made it (seed "1. formatTurnLogEntry"). */
export type TurnLogEntry = {
  /** `HH:MM:SS`, wall clock of the formatter's time zone; no date (the thread anchors the day). */
  timestamp: string;
  kind: "tool" | "subagent" | "policy" | "system" | "command";
  /** One-line rendered form (`tool: Read(src/app.ts)`), already cut to `maxToolPreview`. */
  summary: string;
  /** Length of the untruncated one-line form, so the condenser knows how much was cut. */
  rawLength: number;
  subagentId?: string;
  /** The {@link TurnMessageRole} it came from, for telemetry and debugging. */
  messageRole: string;
};

/**
 * How the condenser fits a turn's entries into one message:
 * - `rollover`: all detail; on overflow the message is finalized with `• …log continues`
 *   and the rest continues in a new message in the same thread (one more notification);
 * - `drop-earliest`: one message, the newest entries that fit, `• …N earlier entries dropped`;
 * - `aggressive-truncate`: one message, every entry, per-entry caps 400 → 200 → 100 (→ 50 →
 *   25); rolls over only if even that does not fit;
 * - `hybrid`: truncate to 100 first, then drop the earliest; rolls over only if the latest
 *   entry alone would not fit.
 */
export type CondenseStrategy = "rollover" | "drop-earliest" | "aggressive-truncate" | "hybrid";

/** Options of `condenseTurnLog`. */
export type CondenseOptions = {
  /** Longest text of one log message, in UTF-16 units. @defaultValue 3_500 */
  maxChars?: number;
  /** @defaultValue "rollover" */
  strategy?: CondenseStrategy;
};

/** What the condenser decided. */
export type CondenseResult =
  | { kind: "fits"; text: string }
  | {
      kind: "rollover";
      /** The current message's last text, ending in `• …log continues`. */
      finalText: string;
      /** Entries that seed the next log message. */
      carryEntries: TurnLogEntry[];
    };

/** Where one activity message goes (seed "Event routing"). */
export type Destination =
  | { kind: "drop" }
  | { kind: "top-level" }
  | { kind: "thread-log" }
  /** Its own message inside the turn's thread (a policy request the user must act on). */
  | { kind: "thread-message" };

/** Which activity is shown (seed's `filters`). */
export type ActivityFilters = {
  /** Show `log` messages and `system` `subagent_update` events. @defaultValue true */
  verbose?: boolean;
  /** Show `subagent` started / done entries. @defaultValue true */
  subagentStatus?: boolean;
  /**
   * Overrides of the default destination per role (`user` is always dropped). Visibility
   * (threads off, DMs) still applies on top.
   */
  routes?: Partial<Record<TurnMessageRole, Destination["kind"]>>;
};

/** Options of `routeMessage`. */
export type RouteOptions = {
  filters?: ActivityFilters;
  /** Threads allowed here; `false` turns `thread-log` / `thread-message` into `top-level`. @defaultValue true */
  threads?: boolean;
  /** A direct chat: `thread-log` → `drop`, `thread-message` → `top-level`. @defaultValue false */
  dm?: boolean;
};

/** The space a turn happens in, for the per-space opt-out. */
export type ActivitySpace = { channel: string; accountId?: string; spaceId: string };

/** Options of the `ActivityLogForwarder` (seed "Configuration", flattened). */
export type ActivityLogOptions = {
  /** Global switch (seed `visibility.threads`): `false` posts activity top-level. @defaultValue true */
  threads?: boolean;
  /**
   * Per-space opt-out (seed `threadsDisabled`): space ids (`target.spaceId`, else the chat
   * id) or a predicate. Such spaces get activity top-level. Wins over `threads`.
   */
  threadsDisabled?: readonly string[] | ((space: ActivitySpace) => boolean);
  /** Cap of one entry's detail (tool content), in characters. @defaultValue 400 */
  maxToolPreview?: number;
  /** Longest text of one log message, in UTF-16 units. @defaultValue 3_500 */
  maxLogMessageChars?: number;
  /**
   * Coalescing window of log edits, in ms: the first entry after a posted edit schedules one
   * edit this much later, carrying every entry that arrived meanwhile.
   * @defaultValue 1_000
   */
  editDebounceMs?: number;
  /** @defaultValue "rollover" */
  condenseStrategy?: CondenseStrategy;
  /** Wait before the one retry of a failed edit, in ms. @defaultValue 500 */
  editRetryDelayMs?: number;
  filters?: ActivityFilters;
  /** IANA time zone of the timestamps. @defaultValue the process's local zone */
  timeZone?: string;
  /**
   * How long one log send or edit waits for its receipt, in ms (it stays queued after that).
   * @defaultValue 15_000
   */
  waitMs?: number;
  /** Timers of the debounce and the edit retry. @defaultValue Node's timers */
  timers?: LiveTimers;
  /** @defaultValue a silent logger */
  logger?: HeraldLogger;
};
