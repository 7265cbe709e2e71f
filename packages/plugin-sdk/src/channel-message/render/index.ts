/**
 * Render helpers for channel plugins: one markdown AST, UTF-16-aware lengths and slicing,
 * chunkers for plain/markdown text and for text + entities, a markdown → text + entities
 * renderer and a caption splitter (DESIGN §8).
 *
 * @module
 */

export { type CaptionSplit, type SplitCaptionOptions, splitCaption } from "./caption.ts";
export {
  type ChunkEntitiesOptions,
  chunkTextWithEntities,
  type EntityChunk,
  sliceTextWithEntities,
} from "./chunk-entities.ts";
export { type ChunkTextOptions, chunkText, type TextChunk } from "./chunk-text.ts";
export type { TextEntity, TextEntityRange, TextWithEntities } from "./entity-types.ts";
export { EntityRangeError, RenderLimitError } from "./errors.ts";
export {
  type Grapheme,
  graphemeBoundaryAtOrBefore,
  graphemes,
  safeSlice,
  type TruncateOptions,
  truncateText,
} from "./graphemes.ts";
export {
  type MdastContent,
  type MdastNode,
  type MdastPhrasingContent,
  type MdastRoot,
  parseMarkdown,
} from "./markdown.ts";
export {
  codePointLength,
  type LengthMeasure,
  measureLength,
  utf8ByteLength,
  utf16Length,
} from "./measure.ts";
export { renderTextWithEntities } from "./render-entities.ts";
