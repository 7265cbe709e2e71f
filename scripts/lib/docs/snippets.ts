/**
 * The snippets of herald's user docs (README.md, docs/, and the published package READMEs):
 * fenced blocks and inline config fragments, with where each is, for the tests that load or
 * run every one of them ([H28] C52).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { globSync } from "tinyglobby";

/** The user docs: the repository README, docs/, and each package's README (its npm page). */
export const DOC_FILES = [
  "README.md",
  "docs/**/*.md",
  "packages/*/README.md",
  "plugins/*/README.md",
  "examples/*/README.md",
];

/** A fenced block: its language, the words after it (`run`), its text without list indent. */
export type Fenced = { file: string; line: number; lang: string; flags: string[]; code: string };

/** An inline code span (`…`) outside fenced blocks. */
export type Inline = { file: string; line: number; code: string };

/** Every doc file, relative to `root`. */
export function docFiles(root: string): string[] {
  return globSync(DOC_FILES, { cwd: root, ignore: ["**/node_modules/**"] }).sort();
}

/** The fenced blocks of one markdown text (also inside list items, indented). */
export function fencedBlocks(file: string, text: string): Fenced[] {
  const blocks: Fenced[] = [];
  for (const m of text.matchAll(/^( *)```([^\n`]*)\n([\s\S]*?)^\1```[ \t]*$/gm)) {
    const indent = m[1] ?? "";
    const [lang = "", ...flags] = (m[2] ?? "").trim().split(/\s+/);
    const code = (m[3] ?? "")
      .split("\n")
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join("\n");
    const line = text.slice(0, m.index).split("\n").length;
    blocks.push({ file, line, lang, flags, code });
  }
  return blocks;
}

/** The inline code spans of one markdown text, fenced blocks left out. */
export function inlineSpans(file: string, text: string): Inline[] {
  const lines = text.split("\n");
  const spans: Inline[] = [];
  let fence: string | undefined;
  for (const [i, line] of lines.entries()) {
    const f = /^( *)```/.exec(line);
    if (f) {
      fence = fence === undefined ? (f[1] ?? "") : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const m of line.matchAll(/`([^`\n]+)`/g))
      spans.push({ file, line: i + 1, code: m[1] ?? "" });
  }
  return spans;
}

/** Every fenced block and inline span of the docs under `root`. */
export function docSnippets(root: string): { fenced: Fenced[]; inline: Inline[] } {
  const fenced: Fenced[] = [];
  const inline: Inline[] = [];
  for (const file of docFiles(root)) {
    const text = readFileSync(join(root, file), "utf8");
    fenced.push(...fencedBlocks(file, text));
    inline.push(...inlineSpans(file, text));
  }
  return { fenced, inline };
}

/**
 * Parses an inline span as JSON: `{ … }` as is, `"key": value` as `{ "key": value }`.
 * Undefined when it is not JSON (an API shape like `{ kind, source }`, an ellipsis).
 */
export function inlineJson(code: string): Record<string, unknown> | undefined {
  const text = code.trim();
  for (const candidate of [text, `{${text}}`]) {
    try {
      const value = JSON.parse(candidate) as unknown;
      if (value && typeof value === "object" && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // next form
    }
  }
  return undefined;
}

/**
 * The channel plugin a doc page is about: `docs/channels/slack.md` and `plugins/slack/README.md`
 * → `@herald/plugin-slack`; an example plugin's README → its package. Undefined elsewhere.
 */
export function pagePlugin(root: string, file: string): string | undefined {
  const channel = /^docs\/channels\/([\w-]+)\.md$/.exec(file);
  if (channel) return `@herald/plugin-${channel[1]}`;
  const readme = /^((?:plugins|examples)\/[\w-]+)\/README\.md$/.exec(file);
  if (readme?.[1]) {
    const pkg = JSON.parse(readFileSync(join(root, readme[1], "package.json"), "utf8")) as {
      name: string;
    };
    return pkg.name;
  }
  return undefined;
}
