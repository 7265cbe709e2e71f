/**
 * Grapheme clusters (what a reader sees as one character: 👨‍👩‍👧, 🇩🇪, e + U+0301) via
 * `Intl.Segmenter`, and slicing that never cuts one — nor, therefore, a surrogate pair.
 *
 * @module
 */
import { RenderLimitError } from "./errors.ts";
import { type LengthMeasure, measureFn } from "./measure.ts";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** One grapheme cluster of a text. */
export type Grapheme = {
  /** The cluster's text (1 or more UTF-16 units). */
  segment: string;
  /** Where it starts in the text, in UTF-16 units. */
  index: number;
};

/**
 * Iterates the grapheme clusters of `text` (Unicode extended grapheme clusters, UAX #29, via
 * `Intl.Segmenter`).
 *
 * @example [...graphemes("a👨‍👩‍👧")].map((g) => g.segment) → ["a", "👨‍👩‍👧"]
 */
export function* graphemes(text: string): Generator<Grapheme, void, undefined> {
  for (const { segment, index } of segmenter.segment(text)) yield { segment, index };
}

/**
 * The largest grapheme boundary at or before `index` (UTF-16 units; clamped to
 * `[0, text.length]`). A boundary is never inside a surrogate pair.
 *
 * @example graphemeBoundaryAtOrBefore("a😀", 2) === 1
 */
export function graphemeBoundaryAtOrBefore(text: string, index: number): number {
  if (index >= text.length) return text.length;
  if (index <= 0) return 0;
  return segmenter.segment(text).containing(Math.floor(index))?.index ?? 0;
}

/**
 * `text.slice(start, end)` with both ends moved back to the nearest grapheme boundary (UTF-16
 * units), so the result never holds half a surrogate pair or half a cluster. Adjacent slices
 * compose: `safeSlice(t, a, b) + safeSlice(t, b, c) === safeSlice(t, a, c)` for `a ≤ b ≤ c`.
 *
 * @defaultValue end `text.length`
 * @example safeSlice("😀😀", 0, 3) === "😀"
 */
export function safeSlice(text: string, start: number, end: number = text.length): string {
  return text.slice(graphemeBoundaryAtOrBefore(text, start), graphemeBoundaryAtOrBefore(text, end));
}

/** Options of {@link truncateText}. */
export type TruncateOptions = {
  /** What `maxLength` counts. @defaultValue `"utf16"` */
  measure?: LengthMeasure;
  /** Appended when the text was cut; counted within `maxLength`. @defaultValue `""` */
  ellipsis?: string;
};

/**
 * The longest prefix of whole grapheme clusters whose length is at most `maxLength` (plus
 * `ellipsis` when something was cut). Returns `text` itself when it fits; may return `""` (or
 * just the ellipsis) when the first cluster alone is too long. For titles, previews and
 * single-field limits (Discord embed title 256, Slack section text 3000); long bodies go through
 * {@link chunkText} instead.
 *
 * @throws RenderLimitError when `maxLength` is not a positive integer or the ellipsis alone is
 * longer than `maxLength`.
 * @example truncateText("Hello 😀 world", 9, { ellipsis: "…" }) === "Hello 😀…"
 */
export function truncateText(
  text: string,
  maxLength: number,
  options: TruncateOptions = {},
): string {
  assertMaxLength(maxLength);
  const measure = measureFn(options.measure);
  if (measure(text) <= maxLength) return text;
  const ellipsis = options.ellipsis ?? "";
  const budget = maxLength - measure(ellipsis);
  if (budget < 0) throw new RenderLimitError(maxLength, `the ellipsis "${ellipsis}" is longer`);
  let used = 0;
  let end = 0;
  for (const { segment, index } of segmenter.segment(text)) {
    used += measure(segment);
    if (used > budget) break;
    end = index + segment.length;
  }
  return text.slice(0, end) + ellipsis;
}

/** @internal */
export function assertMaxLength(maxLength: number): void {
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new RenderLimitError(maxLength, "must be a positive integer");
  }
}

/**
 * Grapheme boundaries of a text with the cumulative measure at each, for the chunkers.
 * `offsets[i]` is a boundary in UTF-16 units (first 0, last `text.length`); `sums[i]` is the
 * measure of `text.slice(0, offsets[i])`.
 *
 * @internal
 */
export type Segmentation = { offsets: number[]; sums: number[] };

/** @internal */
export function segment(text: string, measure: (text: string) => number): Segmentation {
  const offsets = [0];
  const sums = [0];
  let sum = 0;
  for (const { segment: s, index } of segmenter.segment(text)) {
    sum += measure(s);
    offsets.push(index + s.length);
    sums.push(sum);
  }
  return { offsets, sums };
}
