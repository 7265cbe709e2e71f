/**
 * Where a render starts: the tree of a message body. A markdown body is parsed; a literal body
 * (`MessageBody.literal`, e.g. the activity log) becomes text nodes only, so every dialect shows
 * it exactly as typed, escaped for that dialect and never parsed as markdown (DESIGN §7).
 *
 * @module
 */
import type { PhrasingContent, Root } from "mdast";
import { parseMarkdown } from "./markdown.ts";

/**
 * A tree holding `text` as literal text: one paragraph of text nodes, with a `break` at every
 * line end. Nothing in it is markup, so `*`, `_`, `<b>` and `[x](y)` show as typed.
 *
 * @example literalTree("a *b*\nc") → paragraph [text "a *b*", break, text "c"]
 */
export function literalTree(text: string): Root {
  const children: PhrasingContent[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    if (i > 0) children.push({ type: "break" });
    if (line) children.push({ type: "text", value: line });
  });
  return { type: "root", children: children.length ? [{ type: "paragraph", children }] : [] };
}

/**
 * The tree of a message body: `literalTree(markdown)` when `literal` is set, else
 * `parseMarkdown(markdown)`. A body with only `plain` text is literal. `undefined` → empty tree.
 */
export function bodyTree(
  body: { markdown?: string; plain?: string; literal?: boolean } | undefined,
): Root {
  if (!body) return { type: "root", children: [] };
  if (body.literal) return literalTree(body.markdown ?? body.plain ?? "");
  if (body.markdown) return parseMarkdown(body.markdown);
  return literalTree(body.plain ?? "");
}

const SAFE_PROTOCOLS = ["http:", "https:", "mailto:"];

/**
 * True when `url` is an absolute link a reader may follow: `http:`, `https:` or `mailto:`
 * (plus `extra` protocols, e.g. `["matrix:"]`). `javascript:`, `data:`, `vbscript:`, relative
 * and malformed URLs are not; serializers show such a link's label as text.
 */
export function isSafeUrl(url: string, extra: readonly string[] = []): boolean {
  let protocol: string;
  try {
    protocol = new URL(url).protocol.toLowerCase();
  } catch {
    return false;
  }
  return SAFE_PROTOCOLS.includes(protocol) || extra.includes(protocol);
}
