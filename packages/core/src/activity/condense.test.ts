import { describe, expect, it } from "vitest";
import { condenseTurnLog, droppedMarker, LOG_CONTINUES_MARKER } from "./condense.ts";
import { renderTurnLogLine, TRUNCATED_MARKER } from "./format.ts";
import type { TurnLogEntry } from "./types.ts";

/** An entry whose rendered line is exactly `lineLength` long (prefix `• 12:00:00  ` = 12). */
function entry(i: number, lineLength = 40): TurnLogEntry {
  const prefix = `tool: T${i} `;
  const summary = `${prefix}${"x".repeat(lineLength - 12 - prefix.length)}`;
  return {
    timestamp: "12:00:00",
    kind: "tool",
    summary,
    rawLength: summary.length,
    messageRole: "tool",
  };
}
const lines = (es: TurnLogEntry[]) => es.map(renderTurnLogLine).join("\n");

describe("condenseTurnLog", () => {
  it("rollover: fits when under budget", () => {
    const entries = [entry(1), entry(2)];
    expect(condenseTurnLog(entries, { maxChars: 200, strategy: "rollover" })).toEqual({
      kind: "fits",
      text: lines(entries),
    });
  });

  it("rollover: rolls over when exceeded, carrying the overflow tail", () => {
    const entries = [1, 2, 3, 4, 5, 6].map((i) => entry(i));
    const result = condenseTurnLog(entries, { maxChars: 150, strategy: "rollover" });
    if (result.kind !== "rollover") throw new Error(`expected rollover, got ${result.kind}`);
    expect(result.finalText.endsWith(LOG_CONTINUES_MARKER)).toBe(true);
    expect(result.finalText.length).toBeLessThanOrEqual(150);
    // Three 40-char lines + the marker = 139 chars; a fourth line would not fit.
    expect(result.finalText).toBe(`${lines(entries.slice(0, 3))}\n${LOG_CONTINUES_MARKER}`);
    expect(result.carryEntries).toEqual(entries.slice(3));
  });

  it("drop-earliest: drops the oldest entries and prepends a count marker", () => {
    const entries = [1, 2, 3, 4, 5, 6].map((i) => entry(i));
    // The marker (28) + three 40-char lines = 151 chars ≤ 160; four would be 192.
    const result = condenseTurnLog(entries, { maxChars: 160, strategy: "drop-earliest" });
    expect(result).toEqual({
      kind: "fits",
      text: `${droppedMarker(3)}\n${lines(entries.slice(3))}`,
    });
    if (result.kind === "fits") {
      expect(result.text.startsWith("• …3 earlier entries dropped")).toBe(true);
      expect(result.text.length).toBeLessThanOrEqual(160);
    }
  });

  it("aggressive-truncate: shortens per-entry summaries until everything fits", () => {
    const entries = [1, 2, 3, 4].map((i) => entry(i, 300));
    const result = condenseTurnLog(entries, { maxChars: 500, strategy: "aggressive-truncate" });
    if (result.kind !== "fits") throw new Error("expected fits");
    expect(result.text.length).toBeLessThanOrEqual(500);
    const shown = result.text.split("\n");
    expect(shown).toHaveLength(4);
    for (const [i, line] of shown.entries()) {
      expect(line).toContain(`tool: T${i + 1}`);
      expect(line.endsWith(TRUNCATED_MARKER)).toBe(true);
    }
    for (const e of entries) expect(e.rawLength).toBeGreaterThan(100); // inputs untouched
  });

  it("hybrid: truncates first, then drops the earliest", () => {
    const entries = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => entry(i, 300));
    const result = condenseTurnLog(entries, { maxChars: 400, strategy: "hybrid" });
    if (result.kind !== "fits") throw new Error("expected fits");
    expect(result.text.length).toBeLessThanOrEqual(400);
    const [marker, ...kept] = result.text.split("\n");
    expect(marker).toMatch(/^• …\d+ earlier entries dropped$/);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(entries.length);
    for (const line of kept) expect(line.endsWith(TRUNCATED_MARKER)).toBe(true);
    expect(kept.at(-1)).toContain("tool: T8");
  });

  it("is pure: the same input gives the same output and entries are not mutated", () => {
    const entries = [1, 2, 3, 4, 5, 6].map((i) => entry(i, 120));
    const frozen = structuredClone(entries);
    for (const strategy of [
      "rollover",
      "drop-earliest",
      "aggressive-truncate",
      "hybrid",
    ] as const) {
      const a = condenseTurnLog(entries, { maxChars: 300, strategy });
      const b = condenseTurnLog(entries, { maxChars: 300, strategy });
      expect(b).toEqual(a);
    }
    expect(entries).toEqual(frozen);
  });

  it("never loops on a budget smaller than one entry", () => {
    const entries = [entry(1, 300), entry(2, 300)];
    const result = condenseTurnLog(entries, { maxChars: 60, strategy: "rollover" });
    if (result.kind !== "rollover") throw new Error("expected rollover");
    expect(result.finalText.length).toBeLessThanOrEqual(60);
    expect(result.carryEntries).toEqual([entries[1]]);
    expect(condenseTurnLog([entry(1, 300)], { maxChars: 60 })).toMatchObject({ kind: "fits" });
  });
});
