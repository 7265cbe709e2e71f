/**
 * CommonMark (+ GFM) output, via the maintained `mdast-util-to-markdown`: for platforms that
 * take standard markdown — Google Chat with `markupSyntax: MARKUP_SYNTAX_MARKDOWN` (the default
 * for new apps, PLATFORMS.md §4), Slack's `markdown_text` — and for showing a message as
 * markdown source. Text is escaped by the library wherever it could be read as markup.
 *
 * @module
 */
import type { Root } from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import { toMarkdown } from "mdast-util-to-markdown";
import { type AllowedMentions, type Mention, mentionAllowed, mentionText } from "./mention.ts";
import { safeTree } from "./safe-tree.ts";

type SafeInfo = { before: string; after: string };
type SafeState = { safe(value: string, info: SafeInfo): string };

/** Options of {@link renderCommonMark}. */
export type CommonMarkOptions = {
  /**
   * How an allowed mention is written; `undefined` writes its inert text (`@label`).
   * @defaultValue inert text for every mention (CommonMark has no mentions)
   */
  mention?: (mention: Mention) => string | undefined;
  /** Which mentions may be written with `mention`; others are inert text. */
  allowMentions?: AllowedMentions;
};

/**
 * Serializes a tree as CommonMark + GFM (`-` bullets, `*` emphasis, fenced code). Raw HTML
 * becomes escaped text; unsafe links become their label; a line end inside text stays a line
 * end.
 *
 * @example
 * ```ts
 * renderCommonMark(literalTree("2 * 3 <b>")) === "2 \\* 3 \\<b>";
 * ```
 */
export function renderCommonMark(tree: Root, options: CommonMarkOptions = {}): string {
  const write = options.mention;
  const allow = options.allowMentions;
  const out = toMarkdown(safeTree(tree), {
    bullet: "-",
    emphasis: "*",
    fences: true,
    listItemIndent: "one",
    extensions: [gfmToMarkdown()],
    // A typed "&amp;" is text: escape its "&" so it is not read as a character reference.
    unsafe: [{ character: "&", after: "[#A-Za-z]", inConstruct: "phrasing" }],
    handlers: {
      break: () => "\n",
      mention(node: Mention, _parent: unknown, state: SafeState, info: SafeInfo): string {
        const native = write && mentionAllowed(node, allow) ? write(node) : undefined;
        return native ?? state.safe(mentionText(node), info);
      },
    } as never,
  });
  return out.replace(/\n$/, "");
}

/**
 * Google Chat `text` with `markupSyntax: "MARKUP_SYNTAX_MARKDOWN"`: CommonMark, mentions as
 * `<users/{id}>` and `<users/all>` (everyone; only when allowed); channel and role mentions
 * are inert text (Google Chat has none).
 * Source: https://developers.google.com/workspace/chat/format-messages
 */
export function renderGoogleChat(
  tree: Root,
  options: { allowMentions?: AllowedMentions } = {},
): string {
  return renderCommonMark(tree, {
    ...options,
    mention(m) {
      if (m.kind === "everyone" || m.kind === "here") return "<users/all>";
      if (m.kind !== "user" || !m.id) return undefined;
      return `<${m.id.startsWith("users/") ? m.id : `users/${m.id}`}>`;
    },
  });
}
