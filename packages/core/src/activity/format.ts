/**
 * `formatTurnLogEntry` (seed `threaded-activity-log.md`, "Formatting" → "1."): one activity
 * message → one structured log line, or `null` when the message is not part of the log. Pure;
 * oblivious to the message budget (that is the condenser's job).
 *
 * @module
 */
import type { MessageBody } from "../message/message.ts";
import type { TurnMessage } from "../turn/types.ts";
import type { TurnLogEntry } from "./types.ts";

/** Appended to a cut text. */
export const TRUNCATED_MARKER = "…[truncated]";

/** Default cap of one entry's detail, in characters. */
export const DEFAULT_MAX_TOOL_PREVIEW = 400;

/** Options of {@link formatTurnLogEntry}. */
export type FormatTurnLogOptions = {
  /** Cap of the entry's detail (tool content), in characters. @defaultValue 400 */
  maxToolPreview?: number;
  /** IANA time zone of the timestamp. @defaultValue the process's local zone */
  timeZone?: string;
};

/** Newlines (and the blanks around them) become one space: an entry is one line. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/**
 * Cuts `text` to at most `max` UTF-16 units including {@link TRUNCATED_MARKER}, never inside a
 * surrogate pair. Returns `text` unchanged when it fits.
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - TRUNCATED_MARKER.length;
  if (room <= 0) return TRUNCATED_MARKER.slice(0, Math.max(0, max));
  let cut = room;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // do not keep half a pair
  return `${text.slice(0, cut).trimEnd()}${TRUNCATED_MARKER}`;
}

const clocks = new Map<string, Intl.DateTimeFormat>();

function timestampOf(at: number, timeZone: string | undefined): string {
  const key = timeZone ?? "";
  let format = clocks.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      ...(timeZone === undefined ? {} : { timeZone }),
    });
    clocks.set(key, format);
  }
  return format.format(at);
}

function seconds(ms: number): string {
  return ms < 1_000 ? `${ms}ms` : `${Math.round(ms / 1_000)}s`;
}

/** The kind and the untruncated one-line detail of a message, or null when it is not logged. */
function describe(
  m: TurnMessage,
): { kind: TurnLogEntry["kind"]; label: string; detail: string } | null {
  switch (m.role) {
    case "user":
    case "assistant":
    case "reasoning":
      return null;
    case "tool": {
      const call = `${m.name}(${m.input ?? ""})`;
      const result = m.content ? ` — ${m.isError ? "error: " : ""}${m.content}` : "";
      return { kind: "tool", label: "tool", detail: `${call}${result}` };
    }
    case "subagent": {
      const took =
        m.durationMs === undefined || m.status === "started" ? "" : ` (${seconds(m.durationMs)})`;
      return { kind: "subagent", label: "subagent", detail: `${m.name} ${m.status}${took}` };
    }
    case "system":
      if (m.event === "policy_approved" || m.event === "policy_rejected") {
        const verdict = m.event === "policy_approved" ? "approved" : "rejected";
        return { kind: "policy", label: "policy", detail: `${verdict} ${m.text}` };
      }
      return { kind: "system", label: "system", detail: m.text };
    case "policy-request":
      return { kind: "policy", label: "policy", detail: `requested ${m.text}` };
    case "command":
      return {
        kind: "command",
        label: "command",
        detail: `${m.command}${m.output ? ` — ${m.output}` : ""}`,
      };
    case "log":
      return { kind: "system", label: "log", detail: m.text };
    case "error":
      return { kind: "system", label: "error", detail: m.text };
  }
}

/**
 * Formats one activity message as a log entry: `summary` is `<label>: <detail>` on one line
 * (newlines → spaces), the detail cut to `maxToolPreview` with `…[truncated]`; `timestamp`
 * is `HH:MM:SS` of `message.at`.
 *
 * @returns null for `user`, `assistant` and `reasoning` messages (not part of the log).
 * @example
 * formatTurnLogEntry({ role: "tool", name: "Grep", input: '"TODO"', content: "7 matches", id, at })
 * // → { kind: "tool", summary: 'tool: Grep("TODO") — 7 matches', timestamp: "12:04:04", … }
 */
export function formatTurnLogEntry(
  message: TurnMessage,
  options: FormatTurnLogOptions = {},
): TurnLogEntry | null {
  const described = describe(message);
  if (!described) return null;
  const max = options.maxToolPreview ?? DEFAULT_MAX_TOOL_PREVIEW;
  const detail = oneLine(described.detail);
  const prefix = `${described.label}: `;
  return {
    timestamp: timestampOf(message.at, options.timeZone),
    kind: described.kind,
    summary: `${prefix}${truncateText(detail, max)}`,
    rawLength: prefix.length + detail.length,
    messageRole: message.role,
    ...(message.subagentId === undefined ? {} : { subagentId: message.subagentId }),
  };
}

/**
 * The body of every message the activity log posts: `text` marked literal, so tool output with
 * `*`, `_`, `<b>` or `[x](y)` shows as typed on every channel (DESIGN §7: "Log text is literal
 * on every channel").
 *
 * @example activityBody("tool: Grep(*_x_*)") → { markdown: "tool: Grep(*_x_*)", literal: true }
 */
export function activityBody(text: string): MessageBody {
  return { markdown: text, literal: true };
}

/** The text line of an entry: `• HH:MM:SS  summary`. */
export function renderTurnLogLine(entry: TurnLogEntry): string {
  return `• ${entry.timestamp}  ${entry.summary}`;
}

/** A plain one-line text of any activity message (for top-level posts of unlogged roles). */
export function plainActivityText(message: TurnMessage): string {
  switch (message.role) {
    case "tool":
      return `${message.name}(${message.input ?? ""})${message.content ? ` — ${message.content}` : ""}`;
    case "subagent":
      return `${message.name} ${message.status}`;
    case "command":
      return message.command;
    default:
      return message.text;
  }
}
