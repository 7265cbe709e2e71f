/**
 * Matrix `m.text` content (PLATFORMS.md §4): `formatted_body` in `org.matrix.custom.html` from
 * a sanitizing serializer — mdast → hast (`mdast-util-to-hast`, raw HTML never passed
 * through), then `hast-util-sanitize` with a schema of the tags the spec recommends and only
 * `http(s)`, `mailto` and `matrix` links, then `hast-util-to-html` — plus a plain `body`.
 * Source: https://spec.matrix.org/latest/client-server-api/#mroommessage-msgtypes
 *
 * @module
 */
import type { Element, ElementContent } from "hast";
import { defaultSchema, type Schema, sanitize } from "hast-util-sanitize";
import { toHtml } from "hast-util-to-html";
import type { Nodes, Root } from "mdast";
import { toHast } from "mdast-util-to-hast";
import { type AllowedMentions, type Mention, mentionAllowed, mentionText } from "./mention.ts";
import { renderTextWithEntities } from "./render-entities.ts";
import { safeTree } from "./safe-tree.ts";
import { isSafeUrl } from "./tree.ts";

/** The content of a Matrix `m.room.message` text event. */
export type MatrixTextContent = {
  msgtype: "m.text" | "m.notice";
  /** Plain text: what a client without HTML shows. */
  body: string;
  format: "org.matrix.custom.html";
  /** Sanitized HTML. */
  formatted_body: string;
};

/** Options of {@link renderMatrix}. */
export type MatrixRenderOptions = {
  /** @defaultValue "m.text" */
  msgtype?: "m.text" | "m.notice";
  /** Which mentions become pills; others are inert text. @defaultValue users + channels */
  allowMentions?: AllowedMentions;
};

const TAGS = [
  "b",
  "strong",
  "i",
  "em",
  "u",
  "del",
  "s",
  "code",
  "pre",
  "blockquote",
  "a",
  "ul",
  "ol",
  "li",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "br",
  "hr",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "sup",
  "sub",
  "span",
  "input",
];

/** The sanitize schema: Matrix's recommended tags, safe link protocols only. */
const schema: Schema = {
  ...defaultSchema,
  tagNames: TAGS,
  protocols: { href: ["http", "https", "mailto", "matrix"] },
  attributes: {
    a: ["href"],
    code: [["className", /^language-[\w+-]+$/]],
    ol: ["start"],
    input: [["type", "checkbox"], ["disabled", true], "checked"],
    li: [["className", "task-list-item"]],
    ul: [["className", "contains-task-list"]],
    "*": [],
  },
  clobber: [],
  clobberPrefix: "",
};

const matrixSafe = (url: string) => isSafeUrl(url, ["matrix:"]);

/** Line ends inside prose become `break` nodes: chat clients show typed line breaks. */
function lineBreaks(node: Nodes): Nodes {
  if (!("children" in node)) return node;
  const children: Nodes[] = [];
  for (const child of node.children as Nodes[]) {
    if (child.type === "text" && child.value.includes("\n")) {
      child.value.split("\n").forEach((part, i) => {
        if (i > 0) children.push({ type: "break" });
        if (part) children.push({ type: "text", value: part });
      });
    } else children.push(lineBreaks(child));
  }
  return { ...node, children } as Nodes;
}

function pill(m: Mention): ElementContent {
  const text = mentionText(m);
  return {
    type: "element",
    tagName: "a",
    properties: { href: `https://matrix.to/#/${encodeURIComponent(m.id ?? "")}` },
    children: [{ type: "text", value: m.label ?? m.id ?? text }],
  };
}

/**
 * The sanitized `formatted_body` HTML of a tree. User mentions and rooms become `matrix.to`
 * pills; `everyone` / `here` become `@room` when allowed.
 *
 * @example
 * ```ts
 * renderMatrixHtml(parseMarkdown("**hi** <script>x</script> [x](javascript:alert(1))"));
 * // → "<p><strong>hi</strong> &#x3C;script>x&#x3C;/script> x</p>"
 * ```
 */
export function renderMatrixHtml(tree: Root, options: MatrixRenderOptions = {}): string {
  const allow = options.allowMentions;
  const mdast = lineBreaks(safeTree(tree, matrixSafe)) as Root;
  const hast = toHast(mdast, {
    handlers: {
      mention(_state: unknown, node: Mention): ElementContent {
        if (!mentionAllowed(node, allow)) return { type: "text", value: mentionText(node) };
        if (node.kind === "everyone" || node.kind === "here")
          return { type: "text", value: "@room" };
        return pill(node);
      },
    } as never,
  });
  const clean = sanitize(hast, schema);
  return toHtml(clean as Element);
}

/**
 * The plain `body` of a tree: the visible text, as `renderTextWithEntities` lays it out
 * (mentions as `@label`, `@room` when `everyone` is allowed).
 */
export function renderPlainText(tree: Root): string {
  return renderTextWithEntities(tree).text;
}

/**
 * The content of a Matrix text event: plain `body` and sanitized `formatted_body`. Budget the
 * UTF-8 bytes of the whole content (≤ ~60,000, PLATFORMS.md §4): chunk with
 * `chunkMarkdown(tree, { serialize: (t) => JSON.stringify(renderMatrix(t)), measure: "utf8Bytes" })`.
 */
export function renderMatrix(tree: Root, options: MatrixRenderOptions = {}): MatrixTextContent {
  return {
    msgtype: options.msgtype ?? "m.text",
    body: renderPlainText(safeTree(tree, matrixSafe)),
    format: "org.matrix.custom.html",
    formatted_body: renderMatrixHtml(tree, options),
  };
}
