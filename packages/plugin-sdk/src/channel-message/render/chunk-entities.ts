/**
 * `chunkTextWithEntities`: splits "text + entities" (Telegram) to a length limit and re-bases
 * every entity into the chunk it falls in; an entity cut by a boundary continues in the next
 * chunk (DESIGN §8; CASES C16).
 *
 * @module
 */
import { chooseCut, isBlank, splitCluster } from "./cut.ts";
import type { TextEntityRange, TextWithEntities } from "./entity-types.ts";
import { EntityRangeError } from "./errors.ts";
import { assertMaxLength, segment } from "./graphemes.ts";
import { type LengthMeasure, measureFn } from "./measure.ts";

/** Options of {@link chunkTextWithEntities}. */
export type ChunkEntitiesOptions<T extends TextEntityRange> = {
  /**
   * Longest chunk text, in units of `measure` — 4096 for Telegram `text`, 1024 for a caption
   * (PLATFORMS.md §4; Telegram counts the text after entity parsing, i.e. this plain text).
   */
  maxLength: number;
  /** What `maxLength` counts. Entity offsets are UTF-16 units regardless. @defaultValue `"utf16"` */
  measure?: LengthMeasure;
  /**
   * Entities a cut should not split when another boundary fits (a mention, a bot command, a
   * custom emoji). Any entity may still be split when nothing else fits.
   * @defaultValue none
   */
  keepWhole?: (entity: T) => boolean;
  /**
   * Leave out chunks that would hold only whitespace (Telegram rejects an empty message).
   * @defaultValue true
   */
  dropBlank?: boolean;
};

/** One chunk of {@link chunkTextWithEntities}: its text, its entities and where it came from. */
export type EntityChunk<T extends TextEntityRange> = TextWithEntities<T> & {
  /** Start of the chunk in the input text, in UTF-16 units. */
  start: number;
  /** End (exclusive) of the chunk in the input text, in UTF-16 units. */
  end: number;
};

/**
 * Splits text + entities into chunks of at most `maxLength`. Cuts like {@link chunkText}
 * (blank line, line break, space, grapheme; never inside a surrogate pair or a grapheme
 * cluster) and
 * clips each entity to every chunk it overlaps, offsets re-based to the chunk: a bold run,
 * link or `pre` block cut by a boundary continues in the next chunk with the same type and
 * fields (`url`, `language`). The chunk texts concatenate to the input text (apart from
 * whitespace-only chunks left out, see `dropBlank`). Entities are not checked against a
 * platform's per-message entity count.
 *
 * A single grapheme cluster longer than `maxLength` is split at code-point boundaries (see
 * {@link chunkText}).
 *
 * @throws EntityRangeError when an entity does not lie inside the text.
 * @throws RenderLimitError when `maxLength` is not a positive integer or one code point alone
 * is longer.
 * @example Telegram `sendMessage` (text ≤ 4096 UTF-16 units):
 * ```ts
 * for (const c of chunkTextWithEntities(renderTextWithEntities(markdown), { maxLength: 4096 })) {
 *   await bot.api.sendMessage(chatId, c.text, { entities: c.entities.map(toTelegram) });
 * }
 * ```
 */
export function chunkTextWithEntities<T extends TextEntityRange>(
  input: TextWithEntities<T>,
  options: ChunkEntitiesOptions<T>,
): EntityChunk<T>[] {
  const { text, entities } = input;
  const { maxLength } = options;
  assertMaxLength(maxLength);
  validateEntities(input);
  const measure = measureFn(options.measure);
  const seg = segment(text, measure);
  const { offsets } = seg;
  let avoid: Uint8Array | undefined;
  if (options.keepWhole) {
    avoid = new Uint8Array(text.length + 1);
    for (const e of entities)
      if (options.keepWhole(e)) avoid.fill(1, e.offset + 1, e.offset + e.length);
  }
  const dropBlank = options.dropBlank ?? true;
  const chunks: EntityChunk<T>[] = [];
  const push = (start: number, end: number): void => {
    const piece = sliceTextWithEntities(input, start, end);
    if (!(dropBlank && isBlank(piece.text))) chunks.push({ ...piece, start, end });
  };
  const last = offsets.length - 1;
  let i = 0;
  while (i < last) {
    const start = offsets[i] ?? 0;
    const j = chooseCut(text, seg, i, maxLength, avoid);
    if (j === undefined) {
      let p = start;
      for (const piece of splitCluster(text.slice(start, offsets[i + 1]), maxLength, measure)) {
        push(p, p + piece.length);
        p += piece.length;
      }
      i++;
      continue;
    }
    push(start, offsets[j] ?? 0);
    i = j;
  }
  return chunks;
}

/**
 * `text.slice(start, end)` with the entities that overlap it, clipped to it and re-based to
 * its start. Positions in UTF-16 units; the caller picks safe boundaries.
 *
 * @example sliceTextWithEntities({ text: "ab", entities: [{ type: "bold", offset: 0, length: 2 }] }, 1, 2)
 * → { text: "b", entities: [{ type: "bold", offset: 0, length: 1 }] }
 */
export function sliceTextWithEntities<T extends TextEntityRange>(
  input: TextWithEntities<T>,
  start: number,
  end: number = input.text.length,
): TextWithEntities<T> {
  const entities: T[] = [];
  for (const e of input.entities) {
    const from = Math.max(e.offset, start);
    const to = Math.min(e.offset + e.length, end);
    if (to > from) entities.push({ ...e, offset: from - start, length: to - from });
  }
  return { text: input.text.slice(start, end), entities };
}

function validateEntities(input: TextWithEntities<TextEntityRange>): void {
  const n = input.text.length;
  input.entities.forEach((e, index) => {
    const ok =
      Number.isInteger(e.offset) &&
      Number.isInteger(e.length) &&
      e.offset >= 0 &&
      e.length >= 0 &&
      e.offset + e.length <= n;
    if (!ok) throw new EntityRangeError(index, e.offset, e.length, n);
  });
}
