/**
 * `condenseTurnLog` (seed `threaded-activity-log.md`, "Formatting" → "2."): fits a turn's
 * entries into one log message, or says to roll over. Pure: the entries are never mutated and
 * the same input always gives the same output. The only reader of `maxChars`.
 *
 * @module
 */
import { renderTurnLogLine, truncateText } from "./format.ts";
import type { CondenseOptions, CondenseResult, CondenseStrategy, TurnLogEntry } from "./types.ts";

/** Last line of a message that continues in the next one. */
export const LOG_CONTINUES_MARKER = "• …log continues";

/** Default longest log message text, in UTF-16 units (Google Chat's 4096 minus a margin). */
export const DEFAULT_MAX_LOG_MESSAGE_CHARS = 3_500;

/** First line when `n` earlier entries were left out. */
export function droppedMarker(n: number): string {
  return `• …${n} earlier ${n === 1 ? "entry" : "entries"} dropped`;
}

/** Per-entry caps `aggressive-truncate` tries in turn. */
const AGGRESSIVE_CAPS = [400, 200, 100, 50, 25] as const;
/** Per-entry caps `hybrid` tries before it drops entries. */
const HYBRID_CAPS = [400, 200, 100] as const;

const joined = (lines: readonly string[]) => lines.join("\n");
const fits = (lines: readonly string[], max: number) => joined(lines).length <= max;

/** The entry with its summary cut to `cap` (the same object when it already fits). */
function capEntry(entry: TurnLogEntry, cap: number): TurnLogEntry {
  return entry.summary.length <= cap
    ? entry
    : { ...entry, summary: truncateText(entry.summary, cap) };
}

function rollover(entries: readonly TurnLogEntry[], max: number): CondenseResult {
  const lines = entries.map(renderTurnLogLine);
  if (fits(lines, max)) return { kind: "fits", text: joined(lines) };
  let k = lines.length - 1;
  while (k > 0 && !fits([...lines.slice(0, k), LOG_CONTINUES_MARKER], max)) k -= 1;
  if (lines.length === 1) return { kind: "fits", text: truncateText(lines[0] ?? "", max) };
  if (k === 0) {
    // Not even the first entry fits next to the marker: cut that one line (pathological budget).
    const room = Math.max(0, max - LOG_CONTINUES_MARKER.length - 1);
    const first = truncateText(lines[0] ?? "", room);
    return {
      kind: "rollover",
      finalText: joined([first, LOG_CONTINUES_MARKER]),
      carryEntries: entries.slice(1),
    };
  }
  return {
    kind: "rollover",
    finalText: joined([...lines.slice(0, k), LOG_CONTINUES_MARKER]),
    carryEntries: entries.slice(k),
  };
}

/** The newest entries that fit, after a dropped-count line; null when not even one fits. */
function dropEarliest(entries: readonly TurnLogEntry[], max: number): string | null {
  const lines = entries.map(renderTurnLogLine);
  if (fits(lines, max)) return joined(lines);
  for (let dropped = 1; dropped < lines.length; dropped++) {
    const kept = [droppedMarker(dropped), ...lines.slice(dropped)];
    if (fits(kept, max)) return joined(kept);
  }
  return null;
}

/** The entries capped at the first cap of `caps` that makes them all fit, else at the last. */
function truncateAll(
  entries: readonly TurnLogEntry[],
  caps: readonly number[],
  max: number,
): { entries: TurnLogEntry[]; fits: boolean } {
  let capped = [...entries];
  for (const cap of caps) {
    capped = entries.map((e) => capEntry(e, cap));
    if (fits(capped.map(renderTurnLogLine), max)) return { entries: capped, fits: true };
  }
  return { entries: capped, fits: false };
}

/**
 * Fits `entries` into one log message of at most `maxChars`.
 *
 * @returns `{ kind: "fits", text }`, or (strategy `rollover`, or a pathological budget)
 * `{ kind: "rollover", finalText, carryEntries }`: finalize the current message with
 * `finalText` (ending in `• …log continues`) and seed a new one with `carryEntries`.
 * @example
 * condenseTurnLog(entries, { maxChars: 3_500, strategy: "drop-earliest" })
 * // → { kind: "fits", text: "• …3 earlier entries dropped\n• 12:04:41  subagent: Explore done (14s)" }
 */
export function condenseTurnLog(
  entries: readonly TurnLogEntry[],
  options: CondenseOptions = {},
): CondenseResult {
  const max = options.maxChars ?? DEFAULT_MAX_LOG_MESSAGE_CHARS;
  const strategy: CondenseStrategy = options.strategy ?? "rollover";
  switch (strategy) {
    case "rollover":
      return rollover(entries, max);
    case "drop-earliest": {
      const text = dropEarliest(entries, max);
      if (text !== null) return { kind: "fits", text };
      // Not even the newest entry fits: show it cut to the budget.
      const last = entries.at(-1);
      const line = last ? renderTurnLogLine(last) : "";
      const marker = droppedMarker(entries.length - 1);
      const room = Math.max(0, max - marker.length - 1);
      return {
        kind: "fits",
        text:
          entries.length > 1 ? joined([marker, truncateText(line, room)]) : truncateText(line, max),
      };
    }
    case "aggressive-truncate": {
      const result = truncateAll(entries, AGGRESSIVE_CAPS, max);
      if (result.fits) return { kind: "fits", text: joined(result.entries.map(renderTurnLogLine)) };
      return rollover(result.entries, max);
    }
    case "hybrid": {
      const result = truncateAll(entries, HYBRID_CAPS, max);
      if (result.fits) return { kind: "fits", text: joined(result.entries.map(renderTurnLogLine)) };
      const text = dropEarliest(result.entries, max);
      if (text !== null) return { kind: "fits", text };
      return rollover(result.entries, max);
    }
  }
}
