/**
 * [H28] C52: every config and code snippet of the user docs (README.md, docs/, the package
 * READMEs) is loaded by a test — `ts run` blocks run in `docs-examples.test.ts`; here:
 *
 * - each fenced JSON config goes through the real schemas (the gateway's, and each channel's
 *   plugin schema); a channel entry (`{ "plugin", "config" }`) likewise; a tsconfig parses;
 * - each inline config fragment (`"http": { … }`, `{ "store": … }`) is a valid gateway config —
 *   or, on a channel's page, a valid config of that channel (README's `{ "sqlite": … }` was
 *   neither: the form that works is `"store": { "sqlite": … }`);
 * - a `json invalid` block (a config shown being refused) is refused, and the block after it
 *   shows each of its problems (the loader reports plugin configs with the top level's);
 * - a config followed by a `herald start` line (without `--echo`) names a `handler`;
 * - each other code block parses, and every name it imports exists in the package it names
 *   (values imported from the workspace sources, types read from their exports).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSync } from "oxc-parser";
import { describe, expect, it } from "vitest";
import { heraldConfigSchema } from "../../packages/gateway/src/config/schema.ts";
import {
  channelEntryProblems,
  configProblems,
  exportedNames,
  importSpecifier,
  pluginConfigProblems,
  sourceEntry,
} from "./docs/load.ts";
import { docSnippets, type Fenced, inlineJson, pagePlugin } from "./docs/snippets.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "../..");
const { fenced, inline } = docSnippets(root);
const where = (s: { file: string; line: number }) => `${s.file}:${s.line}`;

const CONFIG_KEYS = Object.keys(heraldConfigSchema.shape);
/** Keys of a section that a fragment may wrongly put at the top level. */
const SECTION_KEYS = ["sqlite", "postgres"];
const CODE_LANGS = ["ts", "js", "mjs", "typescript", "javascript"];

const jsonBlocks = fenced.filter((b) => b.lang === "json" && !b.flags.includes("invalid"));
/** `json invalid` blocks: a config shown to be refused; the block after it shows the refusal. */
const invalidBlocks = fenced.filter((b) => b.lang === "json" && b.flags.includes("invalid"));
/** The fenced block after `b` on its page. */
const nextBlock = (b: Fenced) => fenced.find((n) => n.file === b.file && n.line > b.line);
/** `herald start` run by a shell line, without `--echo` (which needs no handler). */
const STARTS_WITHOUT_ECHO = /^(?!\s*#).*\bherald start\b(?!.*--echo)/m;
const codeBlocks = fenced.filter((b) => CODE_LANGS.includes(b.lang) && !b.flags.includes("run"));
const inlineConfigs = inline.flatMap((s) => {
  const value = inlineJson(s.code);
  const keys = Object.keys(value ?? {});
  return value && keys.some((k) => CONFIG_KEYS.includes(k) || SECTION_KEYS.includes(k))
    ? [{ ...s, value }]
    : [];
});

/** What a fenced JSON block is, and its problems. */
async function jsonProblems(b: Fenced): Promise<string[]> {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(b.code) as Record<string, unknown>;
  } catch (error) {
    return [`not JSON: ${(error as Error).message}`];
  }
  if ("compilerOptions" in value)
    return typeof value.compilerOptions === "object" ? [] : ["compilerOptions is not an object"];
  if ("plugin" in value) return channelEntryProblems(root, value);
  const unknown = Object.keys(value).filter((k) => !CONFIG_KEYS.includes(k));
  if (unknown.length === 0) return configProblems(root, value);
  return [
    `not a herald config, a channel entry or a tsconfig (keys ${unknown.join(", ")}): make it one, or mark the block with another language`,
  ];
}

describe("config snippets in the docs (C52)", () => {
  it("finds them", () => {
    expect(jsonBlocks.length).toBeGreaterThan(10);
    expect(inlineConfigs.length).toBeGreaterThan(3);
  });

  it.each(jsonBlocks.map((b) => [where(b), b] as const))(
    "%s is valid",
    async (_at, b) => {
      expect(await jsonProblems(b)).toEqual([]);
    },
    60_000, // the first config of a channel imports its plugin and its platform SDK
  );

  it.each(invalidBlocks.map((b) => [where(b), b] as const))(
    "%s is refused, with each problem shown in the block after it",
    async (_at, b) => {
      const problems = await jsonProblems(b);
      expect(problems.length).toBeGreaterThan(0);
      const shown = nextBlock(b)?.code ?? "";
      expect(shown).toContain(`${problems.length} problem(s)`);
      for (const p of problems) expect(shown).toContain(`- ${p.slice(0, p.indexOf(": "))}: `);
    },
    60_000,
  );

  // A config followed by `herald start` (no --echo) must name a handler: `herald start` refuses
  // one without ("no bot handler"), as docs/console.md's "Turn it on" once did.
  it.each(
    jsonBlocks
      .filter((b) => STARTS_WITHOUT_ECHO.test(nextBlock(b)?.code ?? ""))
      .map((b) => [where(b), b] as const),
  )("%s, run with herald start, names a handler", (_at, b) => {
    const config = JSON.parse(b.code) as { handler?: unknown };
    expect(typeof config.handler).toBe("string");
  });

  it.each(inlineConfigs.map((s) => [`${where(s)} \`${s.code}\``, s] as const))(
    "%s is valid where the page puts it",
    async (_at, s) => {
      const asGateway = await configProblems(root, s.value);
      const plugin = pagePlugin(root, s.file);
      const asChannel = plugin
        ? await pluginConfigProblems(root, plugin, s.value, "config")
        : ["(not a channel's page)"];
      if (asChannel.length > 0) expect(asGateway).toEqual([]);
    },
    60_000,
  );
});

describe("code snippets in the docs (C52)", () => {
  it("finds them", () => {
    expect(codeBlocks.length).toBeGreaterThan(10);
  });

  it.each(codeBlocks.map((b) => [where(b), b] as const))(
    "%s parses and its imports exist",
    async (_at, b) => {
      const file = `snippet.${b.lang.startsWith("j") || b.lang === "mjs" ? "mjs" : "ts"}`;
      const parsed = parseSync(file, b.code);
      expect(parsed.errors.map((e) => e.message)).toEqual([]);
      const missing: string[] = [];
      for (const imp of parsed.module.staticImports) {
        const specifier = imp.moduleRequest.value;
        if (specifier.startsWith(".")) continue; // the reader's own file (plugin-authoring)
        const entry = sourceEntry(root, specifier);
        const types = entry ? exportedNames(entry) : undefined;
        const values = await importSpecifier(root, specifier);
        for (const e of imp.entries) {
          const name = e.importName.kind === "Default" ? "default" : e.importName.name;
          if (!name) continue; // a namespace import
          const found = e.isType ? (types?.has(name) ?? true) : name in values;
          if (!found) missing.push(`${name} from ${specifier}`);
        }
      }
      expect(missing).toEqual([]);
    },
    60_000,
  );
});
