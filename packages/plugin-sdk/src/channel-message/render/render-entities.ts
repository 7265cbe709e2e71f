/**
 * `renderTextWithEntities`: markdown (or an mdast tree) → plain text + formatting entities.
 * Nothing is escaped, so the text shows exactly what the author wrote and the platform has
 * nothing to parse (CASES C18; PLATFORMS.md §4, Telegram: "render Markdown into plain text +
 * entities[]").
 *
 * @module
 */
import type { Definition, List, Nodes, PhrasingContent, Root, RootContent, Table } from "mdast";
import type { TextEntity, TextWithEntities } from "./entity-types.ts";
import { parseMarkdown } from "./markdown.ts";
import { mentionText } from "./mention.ts";

type Ordered = TextEntity & { order: number };
type EntityFields = Record<string, string>;

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:/i;

class Output {
  text = "";
  readonly entities: Ordered[] = [];
  /** Inserted after every newline, for list item continuation lines. */
  indent = "";
  readonly definitions = new Map<string, Definition>();
  private readonly open = new Map<TextEntity["type"], number>();
  private order = 0;

  append(s: string): void {
    this.text += this.indent ? s.replaceAll("\n", `\n${this.indent}`) : s;
  }

  /** Renders `body` inside an entity; an entity of a type already open is not nested. */
  wrap(type: TextEntity["type"], body: () => void, fields: EntityFields = {}): void {
    const active = this.open.get(type) ?? 0;
    const start = this.text.length;
    const order = this.order++;
    this.open.set(type, active + 1);
    body();
    this.open.set(type, active);
    const length = this.text.length - start;
    if (active === 0 && length > 0) {
      this.entities.push({ type, offset: start, length, order, ...fields } as Ordered);
    }
  }
}

/**
 * Renders markdown to plain text + entities: `bold` (strong, headings, table header cells),
 * `italic`, `strikethrough`, `code`, `pre` (fenced or indented code, with `language`), `link`
 * (links, images as their alt text, autolinks; only absolute URLs — a relative link stays plain
 * text) and `blockquote` (not nested). Lists become text (`• item`, `1. item`, `☐`/`☑` for
 * task items, continuation lines indented), tables become `a | b` rows, a thematic break
 * `———`, footnotes `[1]`. Blocks are separated by a blank line; raw HTML is kept as text.
 *
 * Nothing is escaped: the text holds exactly the characters a reader sees — "Sure! Step 1 -
 * done." comes out as `Sure! Step 1 - done.` — and offsets are UTF-16 units (JavaScript string
 * indices), as Telegram expects. The result may be longer than a platform allows: chunk it with
 * {@link chunkTextWithEntities}.
 *
 * @example
 * ```ts
 * renderTextWithEntities("**Hi** `x`");
 * // → { text: "Hi x", entities: [{ type: "bold", offset: 0, length: 2 }, { type: "code", offset: 3, length: 1 }] }
 * ```
 */
export function renderTextWithEntities(source: string | Root): TextWithEntities<TextEntity> {
  const root = typeof source === "string" ? parseMarkdown(source) : source;
  const out = new Output();
  collectDefinitions(root, out.definitions);
  blocks(out, root.children, "\n\n");
  const entities = out.entities
    .sort((a, b) => a.offset - b.offset || b.length - a.length || a.order - b.order)
    .map(({ order: _order, ...e }) => e as TextEntity);
  return { text: out.text, entities };
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): void {
  if (node.type === "definition" && !into.has(node.identifier)) into.set(node.identifier, node);
  if ("children" in node) for (const child of node.children) collectDefinitions(child, into);
}

function blocks(out: Output, nodes: readonly RootContent[], separator: string): void {
  let first = true;
  for (const node of nodes) {
    if (node.type === "definition") continue;
    if (!first) out.append(separator);
    first = false;
    block(out, node);
  }
}

function block(out: Output, node: RootContent): void {
  switch (node.type) {
    case "paragraph":
      inlines(out, node.children);
      break;
    case "heading":
      out.wrap("bold", () => inlines(out, node.children));
      break;
    case "thematicBreak":
      out.append("———");
      break;
    case "blockquote":
      out.wrap("blockquote", () => blocks(out, node.children, "\n\n"));
      break;
    case "list":
      list(out, node);
      break;
    case "code":
      out.wrap("pre", () => out.append(node.value), node.lang ? { language: node.lang } : {});
      break;
    case "table":
      table(out, node);
      break;
    case "footnoteDefinition":
      out.append(`[${node.label ?? node.identifier}] `);
      blocks(out, node.children, "\n");
      break;
    case "listItem":
      blocks(out, node.children, "\n");
      break;
    case "tableRow":
    case "tableCell":
      inlines(out, "children" in node ? (node.children as PhrasingContent[]) : []);
      break;
    case "yaml":
      out.append(node.value);
      break;
    case "definition":
      break;
    default:
      inline(out, node);
      break;
  }
}

function list(out: Output, node: List): void {
  let n = node.start ?? 1;
  node.children.forEach((item, k) => {
    if (k > 0) out.append("\n");
    const number = node.ordered ? `${n++}. ` : "";
    const box = item.checked === true ? "☑ " : item.checked === false ? "☐ " : "";
    const marker = item.data?.continued ? "" : node.ordered ? number + box : box || "• ";
    out.append(marker);
    const saved = out.indent;
    out.indent = saved + " ".repeat(marker.length);
    blocks(out, item.children, "\n");
    out.indent = saved;
  });
}

function table(out: Output, node: Table): void {
  node.children.forEach((row, r) => {
    if (r > 0) out.append("\n");
    row.children.forEach((cell, c) => {
      if (c > 0) out.append(" | ");
      if (r === 0) out.wrap("bold", () => inlines(out, cell.children));
      else inlines(out, cell.children);
    });
  });
}

function inlines(out: Output, nodes: readonly PhrasingContent[]): void {
  for (const node of nodes) inline(out, node);
}

function inline(out: Output, node: PhrasingContent): void {
  switch (node.type) {
    case "text":
    case "html":
      out.append(node.value);
      break;
    case "emphasis":
      out.wrap("italic", () => inlines(out, node.children));
      break;
    case "strong":
      out.wrap("bold", () => inlines(out, node.children));
      break;
    case "delete":
      out.wrap("strikethrough", () => inlines(out, node.children));
      break;
    case "inlineCode":
      out.wrap("code", () => out.append(node.value));
      break;
    case "break":
      out.append("\n");
      break;
    case "link":
      link(out, node.url, () => inlines(out, node.children));
      break;
    case "image":
      link(out, node.url, () => out.append(node.alt ?? ""));
      break;
    case "linkReference":
    case "imageReference": {
      const url = out.definitions.get(node.identifier)?.url ?? "";
      const body =
        node.type === "linkReference"
          ? () => inlines(out, node.children)
          : () => out.append(node.alt ?? "");
      link(out, url, body);
      break;
    }
    case "footnoteReference":
      out.append(`[${node.label ?? node.identifier}]`);
      break;
    case "mention":
      out.append(mentionText(node));
      break;
  }
}

/** A link entity over `body` (the URL itself when the body renders empty). */
function link(out: Output, url: string, body: () => void): void {
  const render = (): void => {
    const start = out.text.length;
    body();
    if (out.text.length === start) out.append(url);
  };
  if (ABSOLUTE_URL.test(url)) out.wrap("link", render, { url });
  else render();
}
