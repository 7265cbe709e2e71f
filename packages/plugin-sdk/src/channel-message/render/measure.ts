/**
 * Length measures. Platforms count different things: Telegram counts UTF-16 code units (the
 * JavaScript `.length`), Discord's 2000 counts characters (UTF-16 is never smaller, so it is the
 * safe measure), Matrix and Google Chat cap the request in UTF-8 bytes (PLATFORMS.md §4).
 *
 * @module
 */

/**
 * What a length limit counts:
 * - `"utf16"`: UTF-16 code units, the JavaScript `string.length` (Telegram text, captions and
 *   entity offsets; the safe choice for "characters" limits such as Discord's 2000);
 * - `"codePoints"`: Unicode code points (an emoji such as 😀 is 1, not 2);
 * - `"utf8Bytes"`: bytes of the UTF-8 encoding (Matrix event size, Google Chat's 32,000-byte
 *   message);
 * - a function: any measure that is **additive** — the measure of a concatenation equals the sum
 *   of the measures of its parts. The helpers call it on single grapheme clusters and on short
 *   fence markers.
 */
export type LengthMeasure = "utf16" | "codePoints" | "utf8Bytes" | ((text: string) => number);

/**
 * Length of `text` in UTF-16 code units — what Telegram counts for its 4096 (text) and 1024
 * (caption) limits and what entity offsets are measured in.
 *
 * @example utf16Length("😀") === 2
 */
export function utf16Length(text: string): number {
  return text.length;
}

/**
 * Number of Unicode code points in `text` (a lone surrogate counts as one).
 *
 * @example codePointLength("😀") === 1
 */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * Bytes of the UTF-8 encoding of `text` (a lone surrogate counts 3, as U+FFFD would).
 *
 * @example utf8ByteLength("é😀") === 6
 */
export function utf8ByteLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Resolves a {@link LengthMeasure} to a function. @internal */
export function measureFn(measure: LengthMeasure = "utf16"): (text: string) => number {
  if (typeof measure === "function") return measure;
  if (measure === "codePoints") return codePointLength;
  if (measure === "utf8Bytes") return utf8ByteLength;
  return utf16Length;
}

/**
 * Length of `text` in the given measure.
 *
 * @defaultValue measure `"utf16"`
 * @example measureLength("😀", "utf8Bytes") === 4
 */
export function measureLength(text: string, measure: LengthMeasure = "utf16"): number {
  return measureFn(measure)(text);
}
