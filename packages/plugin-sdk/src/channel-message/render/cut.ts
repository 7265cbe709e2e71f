/**
 * Where to cut: the boundary choice shared by the chunkers (see {@link chooseCut}). Positions
 * marked "avoid" (in a fence line, inside a keep-whole entity) are taken only when nothing else
 * is left.
 *
 * @module
 */
import { RenderLimitError } from "./errors.ts";
import type { Segmentation } from "./graphemes.ts";

const NL = 10;

function isSpace(code: number): boolean {
  return (
    code === 32 ||
    code === 9 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200b) ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** `p` follows a blank line: "…\n[ \t\r]*\n|p". */
function isParagraphEnd(text: string, p: number): boolean {
  for (let k = p - 2; k >= 0; k--) {
    const c = text.charCodeAt(k);
    if (c === NL) return true;
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return false;
}

/**
 * The index `j > from` into `seg.offsets` of the best cut for a chunk that starts at
 * `seg.offsets[from]` and may measure up to `budget`; `undefined` when the first grapheme alone
 * is longer than `budget`. Returns the last index when the rest of the text fits.
 *
 * Preference, scanning the window from its end: a blank line, then a line break, in the second
 * half of the window (so chunks stay at least half full); then the last blank line or line break
 * anywhere; then the last space; then the last grapheme boundary.
 */
export function chooseCut(
  text: string,
  seg: Segmentation,
  from: number,
  budget: number,
  avoid?: Uint8Array,
): number | undefined {
  const { offsets, sums } = seg;
  const last = offsets.length - 1;
  const base = sums[from] ?? 0;
  let lo = from;
  let hi = last;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((sums[mid] ?? 0) - base <= budget) lo = mid;
    else hi = mid - 1;
  }
  if (lo === from) return undefined;
  if (lo === last) return last;
  const half = budget / 2;
  let lateLine: number | undefined;
  let earlyParagraph: number | undefined;
  let earlyLine: number | undefined;
  let word: number | undefined;
  let any: number | undefined;
  for (let j = lo; j > from; j--) {
    const p = offsets[j] ?? 0;
    if (avoid?.[p]) continue;
    any ??= j;
    const prev = text.charCodeAt(p - 1);
    if (prev === NL) {
      const late = (sums[j] ?? 0) - base >= half;
      if (isParagraphEnd(text, p)) {
        if (late) return j;
        earlyParagraph ??= j;
        break; // nothing earlier can beat an early paragraph break
      }
      if (late) lateLine ??= j;
      else earlyLine ??= j;
    } else if (word === undefined && isSpace(prev)) {
      word = j;
    }
  }
  return lateLine ?? earlyParagraph ?? earlyLine ?? word ?? any ?? lo;
}

/**
 * Splits one grapheme cluster that is longer than `maxLength` at code-point boundaries, greedily
 * (never inside a surrogate pair).
 *
 * @throws RenderLimitError when one code point alone is longer than `maxLength`.
 */
export function splitCluster(
  cluster: string,
  maxLength: number,
  measure: (text: string) => number,
): string[] {
  const pieces: string[] = [];
  let piece = "";
  let size = 0;
  for (const cp of cluster) {
    const m = measure(cp);
    if (m > maxLength) {
      throw new RenderLimitError(
        maxLength,
        `the code point U+${(cp.codePointAt(0) ?? 0).toString(16).toUpperCase()} alone is longer`,
      );
    }
    if (size + m > maxLength) {
      pieces.push(piece);
      piece = "";
      size = 0;
    }
    piece += cp;
    size += m;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** The text is empty or whitespace only (platforms reject such messages). */
export function isBlank(text: string): boolean {
  return text.trim() === "";
}
