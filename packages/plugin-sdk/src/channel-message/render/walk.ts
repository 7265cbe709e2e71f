/**
 * The mdast walker every text dialect shares: it resolves link references, lays out lists,
 * tables and footnotes the same way everywhere, and asks a {@link MarkdownDialect} only for the
 * dialect's own syntax and escaping (DESIGN §8, "Rendering dialects").
 *
 * @module
 */
import type { Definition, List, Nodes, PhrasingContent, Root, RootContent, Table } from "mdast";
import type { Mention } from "./mention.ts";
import { isSafeUrl } from "./tree.ts";

/**
 * One text dialect: how it escapes text and writes each kind of node. Every method returns the
 * serialized form; `inner` arguments are already serialized. Text reaches the dialect only
 * through `text` (prose) and `code` (inside code), so escaping happens exactly once.
 */
export type MarkdownDialect = {
  /** Name, for errors and logs (`"slack"`, `"discord"`, …). */
  readonly name: string;
  /** Escapes prose so that it shows as typed. */
  text(value: string): string;
  /** Escapes the content of inline code and code blocks. */
  code(value: string): string;
  strong(inner: string): string;
  emphasis(inner: string): string;
  delete(inner: string): string;
  /** `value` is raw; escape it with `code`. */
  inlineCode(value: string): string;
  /** `url` has passed {@link MarkdownDialect.safeUrl}; `label` is serialized and not empty. */
  link(url: string, label: string): string;
  mention(mention: Mention): string;
  /** `value` is raw; escape it with `code`. */
  codeBlock(value: string, lang: string | undefined): string;
  heading(inner: string, depth: number): string;
  /** `inner` is the serialized content of the quote (may hold newlines). */
  blockquote(inner: string): string;
  readonly thematicBreak: string;
  /** A hard line break. @defaultValue "\n" */
  readonly lineBreak?: string;
  /** Which links may be links; others become their label as text. @defaultValue isSafeUrl */
  safeUrl?(url: string): boolean;
};

type Walk = { dialect: MarkdownDialect; definitions: Map<string, Definition> };

/**
 * Serializes an mdast tree with `dialect`. Blocks are separated by a blank line; lists become
 * `• item` / `1. item` (task items `☐` / `☑`), continuation lines indented; tables become
 * `a | b` rows with a strong header; footnotes `[1]`; images become a link to the image (its
 * alt text as label); raw HTML is text (escaped, never passed through); links whose URL is not
 * safe become their label.
 *
 * @example
 * ```ts
 * serializeMarkdown(parseMarkdown("**a** & b"), slackDialect()) === "*a* &amp; b";
 * ```
 */
export function serializeMarkdown(tree: Root, dialect: MarkdownDialect): string {
  const w: Walk = { dialect, definitions: new Map() };
  collectDefinitions(tree, w.definitions);
  return blocks(w, tree.children, "\n\n");
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): void {
  if (node.type === "definition" && !into.has(node.identifier)) into.set(node.identifier, node);
  if ("children" in node) for (const child of node.children) collectDefinitions(child, into);
}

function blocks(w: Walk, nodes: readonly RootContent[], separator: string): string {
  return nodes
    .filter((n) => n.type !== "definition")
    .map((n) => block(w, n))
    .join(separator);
}

function block(w: Walk, node: RootContent): string {
  const d = w.dialect;
  switch (node.type) {
    case "paragraph":
      return inlines(w, node.children);
    case "heading": {
      const inner = inlines(w, node.children);
      return inner ? d.heading(inner, node.depth) : "";
    }
    case "thematicBreak":
      return d.thematicBreak;
    case "blockquote": {
      const inner = blocks(w, node.children, "\n\n");
      return inner ? d.blockquote(inner) : "";
    }
    case "list":
      return list(w, node);
    case "code":
      return d.codeBlock(node.value.replace(/\n$/, ""), node.lang ?? undefined);
    case "table":
      return table(w, node);
    case "footnoteDefinition":
      return `${d.text(`[${node.label ?? node.identifier}] `)}${blocks(w, node.children, "\n")}`;
    case "listItem":
      return blocks(w, node.children, "\n");
    case "tableRow":
      return node.children.map((c) => inlines(w, c.children)).join(d.text(" | "));
    case "tableCell":
      return inlines(w, node.children);
    case "yaml":
      return d.text(node.value);
    case "definition":
      return "";
    default:
      return inline(w, node);
  }
}

function list(w: Walk, node: List): string {
  let n = node.start ?? 1;
  return node.children
    .map((item) => {
      const number = node.ordered ? `${n++}. ` : "";
      const box = item.checked === true ? "☑ " : item.checked === false ? "☐ " : "";
      const marker = item.data?.continued ? "" : node.ordered ? number + box : box || "• ";
      // A code block, quote or heading cannot start on the marker's line: it goes on the next.
      const first = item.children[0]?.type ?? "paragraph";
      const lead = marker === "" || first === "paragraph" || first === "list" ? "" : "\n";
      const body = lead + blocks(w, item.children, "\n");
      // At most 3 spaces: 4 would read as indented code where the platform knows it.
      const indent = " ".repeat(Math.min(marker.length, 3));
      return w.dialect.text(marker) + body.replaceAll("\n", `\n${indent}`);
    })
    .join("\n");
}

function table(w: Walk, node: Table): string {
  return node.children
    .map((row, r) =>
      row.children
        .map((cell) => {
          const inner = inlines(w, cell.children);
          return r === 0 && inner ? w.dialect.strong(inner) : inner;
        })
        .join(w.dialect.text(" | ")),
    )
    .join("\n");
}

function inlines(w: Walk, nodes: readonly PhrasingContent[]): string {
  let out = "";
  for (const node of nodes) out += inline(w, node);
  return out;
}

/** Marks `inner`, with its leading and trailing blanks outside the mark (`** a**` is no mark). */
function wrap(inner: string, mark: (s: string) => string): string {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner) as RegExpExecArray;
  return m[2] ? `${m[1]}${mark(m[2])}${m[3]}` : inner;
}

function inline(w: Walk, node: PhrasingContent | RootContent): string {
  const d = w.dialect;
  switch (node.type) {
    case "text":
    case "html":
      return d.text(node.value);
    case "emphasis":
      return wrap(inlines(w, node.children), (s) => d.emphasis(s));
    case "strong":
      return wrap(inlines(w, node.children), (s) => d.strong(s));
    case "delete":
      return wrap(inlines(w, node.children), (s) => d.delete(s));
    case "inlineCode":
      return node.value ? d.inlineCode(node.value) : "";
    case "break":
      return d.lineBreak ?? "\n";
    case "link":
      return link(w, node.url, inlines(w, node.children));
    case "image":
      return link(w, node.url, d.text(node.alt ?? ""));
    case "linkReference":
      return link(w, w.definitions.get(node.identifier)?.url ?? "", inlines(w, node.children));
    case "imageReference":
      return link(w, w.definitions.get(node.identifier)?.url ?? "", d.text(node.alt ?? ""));
    case "footnoteReference":
      return d.text(`[${node.label ?? node.identifier}]`);
    case "mention":
      return d.mention(node);
    default:
      return block(w, node as RootContent);
  }
}

function link(w: Walk, url: string, label: string): string {
  const d = w.dialect;
  const safe = url !== "" && (d.safeUrl ? d.safeUrl(url) : isSafeUrl(url));
  if (!safe) return label || d.text(url);
  return d.link(url, label || d.text(url));
}
