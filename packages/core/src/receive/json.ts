/**
 * JSON safety for payloads from the outside world: whatever arrives (cycles, BigInts,
 * functions) can be stored, so a bad payload becomes a dead letter instead of a crash.
 *
 * @module
 */
import { configure } from "safe-stable-stringify";

/**
 * Returns `value` when it survives `JSON.stringify`, else a JSON description of it
 * (`{ unserializable, type, preview }`). Lossy JSON conversions (`NaN` → `null`, dropped
 * `undefined` fields) are left to `JSON.stringify`.
 */
export function jsonSafe(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { unserializable: true, type: typeof value };
    return value;
  } catch (error) {
    let preview: string;
    try {
      preview = String(value).slice(0, 1000);
    } catch {
      preview = Object.prototype.toString.call(value);
    }
    return {
      unserializable: true,
      type: typeof value,
      preview,
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * How a raw payload is kept as text in the inbox: `json` (exact `JSON.stringify`), `text` (it
 * was a string: kept as is), `lossy` (BigInts written as numbers, cycles as `"[Circular]"`,
 * nesting cut at 1000 levels), `description` (nothing better: a {@link jsonSafe} description).
 */
export type RawTextKind = "json" | "text" | "lossy" | "description";

/** A payload as text, and how it was made. */
export type RawText = { rawText: string; rawKind: RawTextKind };

const lossyStringify = configure({
  bigint: true,
  circularValue: "[Circular]",
  deterministic: false,
  maximumDepth: 1000,
});

/** Turns a raw payload into text that can be stored and replayed; never throws. */
export function toRawText(raw: unknown): RawText {
  if (typeof raw === "string") return { rawText: raw, rawKind: "text" };
  try {
    const text = JSON.stringify(raw);
    if (text !== undefined) return { rawText: text, rawKind: "json" };
  } catch {
    // BigInt, cycle, too deep: below
  }
  try {
    const text = lossyStringify(raw);
    if (typeof text === "string") return { rawText: text, rawKind: "lossy" };
  } catch {
    // below
  }
  return { rawText: JSON.stringify(jsonSafe(raw)) ?? "null", rawKind: "description" };
}

/**
 * The payload back from {@link toRawText}: parsed JSON for `json`/`lossy`/`description`, the
 * string for `text` (or when the text no longer parses).
 */
export function fromRawText({ rawText, rawKind }: RawText): unknown {
  if (rawKind === "text") return rawText;
  try {
    return JSON.parse(rawText);
  } catch {
    return rawText;
  }
}
