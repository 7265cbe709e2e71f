/**
 * `splitCaption`: fits a message's text under a media item as its caption, or moves it (or the
 * overflow) into text messages that follow (CASES C19; Telegram captions are 0–1024 UTF-16 units
 * after entity parsing, PLATFORMS.md §4).
 *
 * @module
 */
import { chunkTextWithEntities, sliceTextWithEntities } from "./chunk-entities.ts";
import { isBlank } from "./cut.ts";
import type { TextEntity, TextEntityRange, TextWithEntities } from "./entity-types.ts";
import { assertMaxLength } from "./graphemes.ts";
import { type LengthMeasure, measureFn } from "./measure.ts";

/** Options of {@link splitCaption}. */
export type SplitCaptionOptions = {
  /** Longest caption, in units of `measure` — 1024 for Telegram (UTF-16 units). */
  maxLength: number;
  /** What `maxLength` counts. @defaultValue `"utf16"` */
  measure?: LengthMeasure;
  /**
   * What to do when the text does not fit:
   * - `"separate"`: send the media without a caption and the whole text after it — the text
   *   stays in one piece, nothing is cut mid-thought;
   * - `"split"`: caption the media with the first chunk (cut at a paragraph, line, space or
   *   grapheme boundary) and send the remainder after it.
   * @defaultValue "separate"
   */
  overflow?: "separate" | "split";
};

/** Result of {@link splitCaption}. */
export type CaptionSplit<T extends TextEntityRange = TextEntity> = {
  /** The caption to send with the media; `undefined` to send it without one. */
  caption: TextWithEntities<T> | undefined;
  /**
   * Text to send after the media — chunk it with {@link chunkTextWithEntities} at the text
   * limit; `undefined` when nothing is left.
   */
  rest: TextWithEntities<T> | undefined;
};

/**
 * Decides what goes into a media caption and what follows as text. A text that fits (measured
 * whole) becomes the caption; otherwise `overflow` decides. Whitespace-only parts are dropped
 * (no empty caption, no empty follow-up). Never cuts a surrogate pair or grapheme cluster:
 * "x" × 1023 + "😀" is 1025 UTF-16 units, so at 1024 it is sent after the media (`separate`)
 * or as caption "x" × 1023 plus a follow-up "😀" (`split`).
 *
 * @throws RenderLimitError when `maxLength` is not a positive integer.
 * @throws EntityRangeError when an entity does not lie inside the text.
 * @example Telegram `sendPhoto` (caption ≤ 1024), then the rest at 4096:
 * ```ts
 * const { caption, rest } = splitCaption(renderTextWithEntities(markdown), { maxLength: 1024 });
 * const more = rest ? chunkTextWithEntities(rest, { maxLength: 4096 }) : [];
 * ```
 */
export function splitCaption<T extends TextEntityRange = TextEntity>(
  input: TextWithEntities<T>,
  options: SplitCaptionOptions,
): CaptionSplit<T> {
  assertMaxLength(options.maxLength);
  const measure = measureFn(options.measure);
  const nonBlank = (t: TextWithEntities<T>): TextWithEntities<T> | undefined =>
    isBlank(t.text) ? undefined : t;
  const first = chunkTextWithEntities(input, { maxLength: options.maxLength, measure })[0];
  if (!first) return { caption: undefined, rest: undefined };
  if (measure(input.text) <= options.maxLength) return { caption: input, rest: undefined };
  if ((options.overflow ?? "separate") === "separate") {
    return { caption: undefined, rest: input };
  }
  return {
    caption: { text: first.text, entities: first.entities },
    rest: nonBlank(sliceTextWithEntities(input, first.end)),
  };
}
