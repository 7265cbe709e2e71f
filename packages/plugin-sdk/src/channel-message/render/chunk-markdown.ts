/**
 * `chunkMarkdown`: the inline-aware chunker. It cuts the tree, not the string: each chunk is a
 * sub-tree holding a run of the tree's leaves (graphemes of text and code, and whole links,
 * mentions, images and line breaks) inside copies of their ancestors, so a mark cut by a chunk
 * boundary is closed in one chunk and re-opened in the next, exactly as fences are. Each chunk
 * is measured in its SERIALIZED form, so escaping and markup count (DESIGN §8; CASES C16, C17).
 *
 * @module
 */
import type { Nodes, Root } from "mdast";
import { splitCluster } from "./cut.ts";
import { RenderLimitError } from "./errors.ts";
import { assertMaxLength, graphemes } from "./graphemes.ts";
import { type LengthMeasure, measureFn } from "./measure.ts";
import { resolveReferences } from "./references.ts";

/** Options of {@link chunkMarkdown}. */
export type ChunkMarkdownOptions = {
  /** Longest serialized chunk, in units of `measure` (e.g. 2000 for Discord, 4000 for Slack). */
  maxLength: number;
  /** What `maxLength` counts. @defaultValue `"utf16"` */
  measure?: LengthMeasure;
  /**
   * The dialect serializer, e.g. `(t) => renderSlack(t)`. The chunker measures what it returns
   * and returns it as `text`. It is called a few times per chunk on candidate sub-trees
   * (interpolation search on the measured size, at most O(log n)).
   */
  serialize: (tree: Root) => string;
};

/** One chunk of {@link chunkMarkdown}. */
export type MarkdownChunk = {
  /** The chunk's sub-tree (reference links resolved), for a second rendering (e.g. Matrix body). */
  tree: Root;
  /** `serialize(tree)`: at most `maxLength` long. */
  text: string;
};

/** Index of the first leaf of each list item, to mark items continued from an earlier chunk. */
const firstLeaf = new WeakMap<Nodes, number>();

const VALUE = new Set(["text", "inlineCode", "code", "html", "yaml"]);
const BLOCK = new Set(["root", "blockquote", "list", "listItem", "footnoteDefinition", "table"]);

type Leaf = {
  /** Ancestors below the root, then the leaf node itself. */
  chain: Nodes[];
  /** For value nodes: the grapheme's range in `value`. */
  start?: number;
  end?: number;
};

function flatten(node: Nodes, chain: Nodes[], out: Leaf[]): void {
  if (node.type === "listItem") firstLeaf.set(node, out.length);
  if (VALUE.has(node.type) && (node.type !== "code" || node.value !== "")) {
    const value = (node as { value: string }).value;
    for (const g of graphemes(value)) {
      out.push({ chain: [...chain, node], start: g.index, end: g.index + g.segment.length });
    }
    return;
  }
  const empty = "children" in node && node.children.length === 0 && node.type !== "root";
  if (node.type === "link" || !("children" in node) || empty) {
    out.push({ chain: [...chain, node] });
    return;
  }
  const below = node.type === "root" ? chain : [...chain, node];
  for (const child of node.children as Nodes[]) flatten(child, below, out);
}

/**
 * The leaves inside a link, for a link that alone is too long: it is cut like text — each piece
 * still a link to the URL, or (`keepLink` false, when the URL alone does not fit) plain text.
 */
function expandLink(leaf: Leaf, keepLink = true): Leaf[] {
  const link = leaf.chain.at(-1) as Nodes & { children: Nodes[] };
  const out: Leaf[] = [];
  const chain = keepLink ? leaf.chain : leaf.chain.slice(0, -1);
  for (const child of link.children) flatten(child, chain, out);
  return out;
}

function clone(node: Nodes): Nodes & { children: Nodes[] } {
  const { position: _p, ...rest } = node as Nodes & { children: Nodes[] };
  return { ...rest, children: [] } as unknown as Nodes & { children: Nodes[] };
}

/** The sub-tree of leaves `[a, b)`: each leaf inside copies of its ancestors, shared runs merged. */
function build(leaves: readonly Leaf[], a: number, b: number): Root {
  const root = { type: "root", children: [] } as Root & { children: Nodes[] };
  const stack: { orig: Nodes; copy: Nodes & { children: Nodes[] } }[] = [];
  let lastOrig: Nodes | undefined;
  let lastCopy: (Nodes & { value?: string }) | undefined;
  for (let i = a; i < b; i++) {
    const { chain, start, end } = leaves[i] as Leaf;
    const depth = chain.length - 1;
    let k = 0;
    while (k < stack.length && k < depth && stack[k]?.orig === chain[k]) k++;
    if (k < stack.length) lastOrig = undefined;
    stack.length = k;
    let parent = k > 0 ? (stack[k - 1]?.copy as Nodes & { children: Nodes[] }) : root;
    for (let d = k; d < depth; d++) {
      const orig = chain[d] as Nodes;
      const copy = clone(orig);
      if (orig.type === "listItem" && (firstLeaf.get(orig) ?? i) < i) {
        (copy as typeof orig).data = { ...orig.data, continued: true };
      }
      if (orig.type === "list" && orig.ordered) {
        const item = chain[d + 1] as (typeof orig.children)[number];
        (copy as typeof orig).start = (orig.start ?? 1) + orig.children.indexOf(item);
      }
      parent.children.push(copy);
      stack.push({ orig, copy });
      parent = copy;
      lastOrig = undefined;
    }
    const node = chain[depth] as Nodes & { value?: string };
    if (start === undefined) {
      parent.children.push(node);
      lastOrig = undefined;
      continue;
    }
    const piece = (node.value as string).slice(start, end);
    if (lastOrig === node && lastCopy) lastCopy.value += piece;
    else {
      const { position: _p, ...rest } = node;
      lastCopy = { ...rest, value: piece } as Nodes & { value: string };
      parent.children.push(lastCopy);
      lastOrig = node;
    }
  }
  return root;
}

/** Visible character of a grapheme leaf, or "\n" for a line break. */
function leafChar(leaf: Leaf): string {
  const node = leaf.chain.at(-1) as Nodes & { value?: string };
  if (leaf.start !== undefined) return (node.value as string).slice(leaf.start, leaf.end);
  return node.type === "break" ? "\n" : "";
}

/** A space of prose (not of code): left out at the ends of a chunk, as chat clients trim. */
function isBlankLeaf(leaf: Leaf): boolean {
  const node = leaf.chain.at(-1) as Nodes;
  if (leaf.start === undefined || node.type !== "text") return false;
  const c = leafChar(leaf);
  return c.trim() === "" && c !== "\n";
}

/** How good a cut before leaf `i` is: 3 between blocks, 2 at a line end, 1 after a space. */
function rank(leaves: readonly Leaf[], i: number): number {
  const prev = leaves[i - 1] as Leaf;
  const next = leaves[i] as Leaf;
  let k = 0;
  while (k < prev.chain.length && k < next.chain.length && prev.chain[k] === next.chain[k]) k++;
  const common = k === 0 ? "root" : (prev.chain[k - 1] as Nodes).type;
  if (BLOCK.has(common)) return 3;
  if (common === "tableRow") return 2;
  const c = leafChar(prev);
  if (c === "\n") return 2;
  return c !== "" && c.trim() === "" ? 1 : 0;
}

/**
 * Splits a tree into chunks whose serialized form is at most `maxLength`, cutting only between
 * leaves: never inside a grapheme (so never inside a surrogate pair), a link, a mention or an
 * escape sequence the serializer writes. Marks, quotes, list items and code blocks that a cut
 * goes through are closed and re-opened by the serializer on both sides; an ordered list
 * continued in the next chunk keeps its numbering, and a list item cut in two is marked
 * `data.continued` so its bullet or number is not written twice (by the shared walker — Slack,
 * Discord, your `MarkdownDialect` — and by the plain text; HTML and CommonMark have no way to
 * continue an item and show it again).
 *
 * Where to cut, as `chunkText`: between blocks, then at a line end, in the second half of the
 * window; else the last block or line end; else after the last space; else between any two
 * leaves. Spaces of prose at either end of a chunk are left out (chat clients trim them; a
 * space just inside a closing mark would also undo the mark), as are chunks whose text is
 * blank. Link references are resolved first.
 *
 * Limits: a link longer than `maxLength` alone is cut like text (each piece links to the same
 * URL; when the URL itself does not fit, the pieces are plain text); a grapheme that does not fit with its marks is sent without them, split at code points
 * when it is longer than `maxLength` itself; an empty block (code block, list item) that does not
 * fit is left out.
 *
 * @throws RenderLimitError when `maxLength` is not a positive integer, or one code point, a
 * mention or an image alone serializes longer than `maxLength`.
 * @example Slack (~4000 for readability, PLATFORMS.md §4):
 * ```ts
 * const texts = chunkMarkdown(tree, { maxLength: 4000, serialize: (t) => renderSlack(t) })
 *   .map((c) => c.text);
 * ```
 */
export function chunkMarkdown(tree: Root, options: ChunkMarkdownOptions): MarkdownChunk[] {
  const { maxLength, serialize } = options;
  assertMaxLength(maxLength);
  const measure = measureFn(options.measure);
  const leaves: Leaf[] = [];
  flatten(resolveReferences(tree), [], leaves);
  const chunks: MarkdownChunk[] = [];
  const emit = (t: Root, text: string) => {
    if (text.trim() !== "") chunks.push({ tree: t, text });
  };
  const measureAt = (a: number, b: number): { chunk?: MarkdownChunk; size: number } => {
    let end = b;
    while (end > a + 1 && isBlankLeaf(leaves[end - 1] as Leaf)) end--;
    const t = build(leaves, a, end);
    const text = serialize(t);
    const size = measure(text);
    return size <= maxLength ? { chunk: { tree: t, text }, size } : { size };
  };
  const attempt = (a: number, b: number): MarkdownChunk | undefined => measureAt(a, b).chunk;

  let a = 0;
  while (a < leaves.length) {
    while (a < leaves.length - 1 && isBlankLeaf(leaves[a] as Leaf)) a++;
    let best = attempt(a, a + 1);
    if (!best) {
      if (!oversized(leaves, a, serialize, measure, maxLength, emit)) continue;
      a++;
      continue;
    }
    // Nearly the largest b that fits (lo fits, hi does not; within 2% of the window, as the cut
    // goes back to a natural boundary anyway): guesses interpolated on the measured size of the
    // last try, and a bisection after two guesses in a row that did not halve the interval.
    let lo = a + 1;
    let hi = leaves.length + 1;
    let guess = Math.min(leaves.length, a + maxLength);
    let width = Number.POSITIVE_INFINITY;
    let stalls = 0;
    while (hi - lo > Math.max(1, (lo - a) / 50)) {
      const b =
        stalls >= 2 && hi <= leaves.length
          ? (lo + hi) >> 1
          : Math.max(lo + 1, Math.min(hi - 1, guess));
      const got = measureAt(a, b);
      if (got.chunk) {
        lo = b;
        best = got.chunk;
      } else hi = b;
      stalls = hi - lo > width / 2 ? stalls + 1 : 0;
      width = hi - lo;
      // Aim just past the estimate on the side not yet bracketed, so the next try closes it.
      const nudge = Math.max(1, Math.floor((b - a) / 100)) * (got.chunk ? 1 : -1);
      guess = a + Math.floor(((b - a) * maxLength) / Math.max(1, got.size)) + nudge;
    }
    if (lo < leaves.length) {
      const cut = chooseCut(leaves, a, lo);
      const got = cut < lo ? attempt(a, cut) : undefined;
      if (got) {
        best = got;
        lo = cut;
      }
    }
    emit(best.tree, best.text);
    a = lo;
  }
  return chunks;
}

/** Preference as `chunkText`'s: the best cut in `(a, b]` for a chunk starting at leaf `a`. */
function chooseCut(leaves: readonly Leaf[], a: number, b: number): number {
  const half = (b - a) / 2;
  let lateLine: number | undefined;
  let earlyBlock: number | undefined;
  let earlyLine: number | undefined;
  let word: number | undefined;
  for (let j = b; j > a; j--) {
    if (j >= leaves.length) return j;
    const r = rank(leaves, j);
    const late = j - a >= half;
    if (r === 3) {
      if (late) return j;
      earlyBlock = j;
      break;
    }
    if (r === 2) {
      if (late) lateLine ??= j;
      else earlyLine ??= j;
    } else if (r === 1) word ??= j;
  }
  return lateLine ?? earlyBlock ?? earlyLine ?? word ?? b;
}

/**
 * Leaf `a` alone does not fit. A link is expanded into its text (returns false: retry at `a`);
 * a grapheme is emitted bare, split at code points if needed (returns true: go on at `a + 1`).
 */
function oversized(
  leaves: Leaf[],
  a: number,
  serialize: (tree: Root) => string,
  measure: (text: string) => number,
  maxLength: number,
  emit: (t: Root, text: string) => void,
): boolean {
  const leaf = leaves[a] as Leaf;
  const node = leaf.chain.at(-1) as Nodes;
  if (node.type === "link") {
    // Pieces that still link need one grapheme plus the URL to fit; else (a URL longer than
    // maxLength) every piece would be sent alone, one grapheme per chunk: cut it as plain text.
    const linked = expandLink(leaf);
    const fits = linked.length > 0 && measure(serialize(build(linked, 0, 1))) <= maxLength;
    leaves.splice(a, 1, ...(fits ? linked : expandLink(leaf, false)));
    return false;
  }
  const bare = (value: string): Root => ({
    type: "root",
    children: [{ type: "paragraph", children: [{ type: "text", value }] }],
  });
  if (leaf.start === undefined && node.type !== "mention" && node.type !== "image") {
    return true; // shows nothing (an empty code block or list item): left out
  }
  if (leaf.start === undefined) {
    throw new RenderLimitError(maxLength, `a ${node.type} alone serializes longer`);
  }
  const char = leafChar(leaf);
  const whole = serialize(bare(char));
  if (measure(whole) <= maxLength) {
    emit(bare(char), whole);
    return true;
  }
  for (const piece of splitCluster(char, maxLength, measure)) {
    const text = serialize(bare(piece));
    if (measure(text) > maxLength) {
      throw new RenderLimitError(maxLength, `"${piece}" alone serializes longer ("${text}")`);
    }
    emit(bare(piece), text);
  }
  return true;
}
