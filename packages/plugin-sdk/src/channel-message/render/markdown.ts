/**
 * One markdown AST for every plugin: mdast with GitHub Flavored Markdown (tables, task lists,
 * strikethrough, autolinks, footnotes). Each plugin renders this tree to its native format
 * (DESIGN §8: "Rendering starts from one markdown AST").
 *
 * @module
 */
import type { Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

export type {
  Nodes as MdastNode,
  PhrasingContent as MdastPhrasingContent,
  Root as MdastRoot,
  RootContent as MdastContent,
} from "mdast";

/**
 * Parses markdown (CommonMark + GFM) into an mdast tree. Never throws: any input is some
 * markdown. Strikethrough needs two tildes (`~~gone~~`), so "~5 min to ~10 min" stays text.
 * Raw HTML stays as `html` nodes (renderers show it as text or sanitize it).
 *
 * Source: mdast spec (github.com/syntax-tree/mdast), `mdast-util-from-markdown`,
 * `micromark-extension-gfm`.
 *
 * @example
 * ```ts
 * const tree = parseMarkdown("**Hi** [docs](https://example.com)");
 * tree.children[0]?.type === "paragraph";
 * ```
 */
export function parseMarkdown(markdown: string): Root {
  return fromMarkdown(markdown, {
    extensions: [gfm({ singleTilde: false })],
    mdastExtensions: [gfmFromMarkdown()],
  });
}
