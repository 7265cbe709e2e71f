/**
 * `chunkText`: splits (markdown) text to a platform's length limit at the most natural
 * boundary, never inside a grapheme cluster or a surrogate pair, keeping fenced code blocks
 * balanced (DESIGN §8; CASES C16, C17).
 *
 * @module
 */
import { chooseCut, isBlank, splitCluster } from "./cut.ts";
import { type Fence, fenceAt, fenceAvoidMask, scanFences } from "./fences.ts";
import { assertMaxLength, segment } from "./graphemes.ts";
import { type LengthMeasure, measureFn } from "./measure.ts";

/** Options of {@link chunkText}. */
export type ChunkTextOptions = {
  /**
   * Longest chunk, markers included, in units of `measure` — e.g. 2000 for Discord `content`,
   * 4096 for Telegram `text`, 4000 for readable Slack messages (PLATFORMS.md §4).
   */
  maxLength: number;
  /** What `maxLength` counts. @defaultValue `"utf16"` */
  measure?: LengthMeasure;
  /**
   * Keep fenced code blocks balanced: a chunk that ends inside a fence closes it and the next
   * chunk re-opens it with the same opening line (language included). Turn off for text that
   * is not markdown.
   * @defaultValue true
   */
  codeFences?: boolean;
  /**
   * Leave out chunks that would hold only whitespace (every platform rejects an empty
   * message). Such chunks only arise from runs of whitespace longer than `maxLength`.
   * @defaultValue true
   */
  dropBlank?: boolean;
};

/** One chunk of {@link chunkText}. */
export type TextChunk = {
  /** What to send: `reopen + input.slice(start, end) + close`. */
  text: string;
  /** Start of the chunk's slice of the input, in UTF-16 units. */
  start: number;
  /** End (exclusive) of the chunk's slice of the input, in UTF-16 units. */
  end: number;
  /** The fence opening line re-sent before the slice, e.g. "```ts\n"; `""` if none. */
  reopen: string;
  /** The closing fence added after the slice, e.g. "\n```"; `""` if none. */
  close: string;
};

/**
 * Splits text into chunks of at most `maxLength` (in `measure` units, markers included).
 *
 * Cuts at the most natural boundary that fits: a blank line, then a line break, in the second
 * half of the window (so chunks stay at least half full); else the last blank line or line
 * break anywhere; else the last space; else the last grapheme boundary — never inside a
 * grapheme cluster, so never inside a surrogate pair. Separators stay at the end of the earlier chunk, so the next one
 * starts with content. A chunk that ends inside a fenced code block gets a closing fence, and
 * the next chunk starts with the fence's opening line again (same language), so every chunk
 * renders as code where the input did. The slices concatenate to the input (apart from
 * whitespace-only chunks left out, see `dropBlank`).
 *
 * Limits: a single grapheme cluster longer than `maxLength` (e.g. a letter with hundreds of
 * combining marks, or a 4-unit flag at a limit of 3) is split at code-point boundaries, and its
 * pieces are sent without fence markers. When `maxLength` leaves no room for a fence's markers
 * plus one grapheme, that chunk is cut without markers. Fences inside block quotes or list items
 * are not tracked.
 *
 * @throws RenderLimitError when `maxLength` is not a positive integer, or one code point alone
 * is longer than `maxLength` (an astral character, 2 UTF-16 units, at a limit of 1).
 * @example Discord (`content` ≤ 2000, seed "Adapter surface", PLATFORMS.md §4):
 * ```ts
 * const parts = chunkText(markdown, { maxLength: 2000 }).map((c) => c.text);
 * ```
 */
export function chunkText(text: string, options: ChunkTextOptions): TextChunk[] {
  const { maxLength } = options;
  assertMaxLength(maxLength);
  const measure = measureFn(options.measure);
  const seg = segment(text, measure);
  const { offsets, sums } = seg;
  const fences = options.codeFences === false ? [] : scanFences(text);
  const avoid = fences.length > 0 ? fenceAvoidMask(text.length, fences) : undefined;
  const dropBlank = options.dropBlank ?? true;
  const chunks: TextChunk[] = [];
  const push = (start: number, end: number, reopen: string, close: string): void => {
    const slice = text.slice(start, end);
    if (dropBlank && isBlank(slice)) return;
    chunks.push({ text: reopen + slice + close, start, end, reopen, close });
  };

  const last = offsets.length - 1;
  let i = 0;
  while (i < last) {
    const start = offsets[i] ?? 0;
    let reopen = fenceAt(fences, start)?.openLine ?? "";
    let close = "";
    let budget = maxLength - measure(reopen);
    let j: number | undefined;
    for (;;) {
      j = budget > 0 ? chooseCut(text, seg, i, budget, avoid) : undefined;
      if (j === undefined) break;
      const end = offsets[j] ?? 0;
      const f: Fence | undefined = end < text.length ? fenceAt(fences, end) : undefined;
      close = f ? (text.charCodeAt(end - 1) === 10 ? f.marker : `\n${f.marker}`) : "";
      const size = measure(reopen) + (sums[j] ?? 0) - (sums[i] ?? 0) + measure(close);
      if (size <= maxLength || !f) break;
      budget = Math.min(budget - 1, maxLength - measure(reopen) - measure(`\n${f.marker}`));
    }
    if (j === undefined) {
      // The markers leave no room for the next grapheme: cut this chunk without them.
      reopen = "";
      close = "";
      j = chooseCut(text, seg, i, maxLength, avoid);
    }
    if (j === undefined) {
      // One grapheme cluster longer than maxLength: split it at code points.
      let p = start;
      for (const piece of splitCluster(text.slice(start, offsets[i + 1]), maxLength, measure)) {
        push(p, p + piece.length, "", "");
        p += piece.length;
      }
      i++;
      continue;
    }
    push(start, offsets[j] ?? 0, reopen, close);
    i = j;
  }
  return chunks;
}
