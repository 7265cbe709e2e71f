/**
 * Render helpers for channel plugins: one markdown AST, UTF-16-aware lengths and slicing,
 * chunkers for plain/markdown text and for text + entities, a markdown → text + entities
 * renderer and a caption splitter (DESIGN §8); dialect serializers (Slack mrkdwn, Discord
 * markdown, sanitized Matrix HTML, Google Chat / CommonMark) over one mdast walker, and the
 * inline-aware `chunkMarkdown`.
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
export {
  type ChunkMarkdownOptions,
  chunkMarkdown,
  type MarkdownChunk,
} from "./chunk-markdown.ts";
export { type ChunkTextOptions, chunkText, type TextChunk } from "./chunk-text.ts";
export { type CommonMarkOptions, renderCommonMark, renderGoogleChat } from "./commonmark.ts";
export {
  type DiscordDialectOptions,
  discordDialect,
  discordMentions,
  escapeDiscord,
  renderDiscord,
} from "./discord.ts";
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
  type MatrixRenderOptions,
  type MatrixTextContent,
  renderMatrix,
  renderMatrixHtml,
  renderPlainText,
} from "./matrix.ts";
export {
  codePointLength,
  type LengthMeasure,
  measureLength,
  utf8ByteLength,
  utf16Length,
} from "./measure.ts";
export {
  type AllowedMentions,
  extractMentions,
  type Mention,
  type MentionSyntax,
  mentionAllowed,
  mentionText,
} from "./mention.ts";
export { resolveReferences } from "./references.ts";
export { renderTextWithEntities } from "./render-entities.ts";
export { safeTree } from "./safe-tree.ts";
export {
  escapeSlack,
  renderSlack,
  type SlackDialectOptions,
  slackDialect,
  slackMentions,
} from "./slack.ts";
export { bodyTree, isSafeUrl, literalTree } from "./tree.ts";
export { type MarkdownDialect, serializeMarkdown } from "./walk.ts";
