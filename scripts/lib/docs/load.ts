/**
 * Loading what a doc snippet names, from the workspace's sources: a package entry (`@herald/…`
 * and its subpaths, by their `herald-source` export), the names it exports (values and types,
 * read from the source with oxc), and a config validated by the real schemas — the gateway's
 * and each named channel plugin's own.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseSync } from "oxc-parser";
import { globSync } from "tinyglobby";
import type { ConfigIssue } from "../../../packages/gateway/src/config/errors.ts";
import { parseWithIssues } from "../../../packages/gateway/src/config/issues.ts";
import {
  channelConfigSchema,
  heraldConfigSchema,
} from "../../../packages/gateway/src/config/schema.ts";

type Manifest = { name: string; exports?: Record<string, string | Record<string, string>> };

/** The workspace's packages by name: folder and manifest. */
export function workspacePackages(root: string): Map<string, { dir: string; manifest: Manifest }> {
  const map = new Map<string, { dir: string; manifest: Manifest }>();
  for (const file of globSync(
    ["packages/*/package.json", "plugins/*/package.json", "examples/*/package.json"],
    {
      cwd: root,
    },
  )) {
    const manifest = JSON.parse(readFileSync(join(root, file), "utf8")) as Manifest;
    map.set(manifest.name, { dir: join(root, dirname(file)), manifest });
  }
  return map;
}

/** The package part of a specifier: `@scope/name/sub` → `@scope/name`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/**
 * The source file of a workspace package's export (`@herald/plugin-sdk/testing` →
 * `…/src/testing/index.ts`); undefined for other packages.
 * @throws Error when the package is ours and has no such export.
 */
export function sourceEntry(root: string, specifier: string): string | undefined {
  const pkg = workspacePackages(root).get(packageName(specifier));
  if (!pkg) return undefined;
  const sub = `.${specifier.slice(pkg.manifest.name.length)}`;
  const target = pkg.manifest.exports?.[sub];
  const file = typeof target === "string" ? target : target?.["herald-source"];
  if (!file) throw new Error(`${pkg.manifest.name} exports no "${sub}"`);
  return join(pkg.dir, file);
}

/** Imports a specifier as a user of the published packages would (workspace sources). */
export async function importSpecifier(
  root: string,
  specifier: string,
): Promise<Record<string, unknown>> {
  if (specifier.startsWith("node:")) return (await import(specifier)) as Record<string, unknown>;
  const entry = sourceEntry(root, specifier);
  if (entry) return (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  // Third-party: resolved where the gateway's dependencies are.
  const require = createRequire(join(root, "packages/gateway/package.json"));
  return (await import(pathToFileURL(require.resolve(specifier)).href)) as Record<string, unknown>;
}

/** Every name a source module exports, types included (following `export *`). */
export function exportedNames(file: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  if (seen.has(file)) return names;
  seen.add(file);
  const { module } = parseSync(file, readFileSync(file, "utf8"));
  for (const e of module.staticExports) {
    for (const entry of e.entries) {
      if (entry.exportName.kind === "Name" && entry.exportName.name)
        names.add(entry.exportName.name);
      else if (entry.exportName.kind === "Default") names.add("default");
      else if (
        entry.importName.kind === "AllButDefault" &&
        entry.moduleRequest?.value.startsWith(".")
      )
        for (const n of exportedNames(resolve(dirname(file), entry.moduleRequest.value), seen))
          if (n !== "default") names.add(n);
    }
  }
  return names;
}

/** A problem of a snippet's config, with the field path. */
function format(issues: readonly ConfigIssue[]): string[] {
  return issues.map((i) => `${i.path || "(root)"}: ${i.message}${i.fix ? ` (fix: ${i.fix})` : ""}`);
}

/** Validates one channel entry's plugin config with the plugin's own schema. */
async function channelProblems(root: string, channel: unknown, at: string): Promise<string[]> {
  const parsed = parseWithIssues(channelConfigSchema, channel, [at]);
  if (!parsed.ok) return format(parsed.issues);
  return pluginConfigProblems(root, parsed.data.plugin, parsed.data.config, `${at}.config`);
}

/** Validates a plugin's `config` object with the plugin's own `configSchema`. */
export async function pluginConfigProblems(
  root: string,
  plugin: string,
  config: unknown,
  at: string,
): Promise<string[]> {
  const mod = await importSpecifier(root, plugin).catch((error: Error) => error);
  if (mod instanceof Error) return [`${at}: cannot load ${plugin}: ${mod.message}`];
  const schema = (mod.default as { configSchema?: Parameters<typeof parseWithIssues>[0] })
    ?.configSchema;
  if (!schema) return [`${at}: ${plugin} has no default export with a configSchema`];
  const parsed = parseWithIssues(schema, config, at.split("."));
  return parsed.ok ? [] : format(parsed.issues);
}

/** Validates a whole gateway config: the gateway's schema, then each channel's plugin schema. */
export async function configProblems(root: string, raw: unknown): Promise<string[]> {
  const parsed = parseWithIssues(heraldConfigSchema, raw);
  if (!parsed.ok) {
    // As the gateway's loader does: the channels' plugin configs are reported in the same run.
    const channels = (raw as { channels?: unknown } | null)?.channels;
    const more: string[] = [];
    if (Array.isArray(channels))
      for (const [i, channel] of channels.entries())
        more.push(...(await channelProblems(root, channel, `channels[${i}]`)));
    return [...format(parsed.issues), ...more];
  }
  const problems: string[] = [];
  for (const [i, channel] of parsed.data.channels.entries())
    problems.push(...(await channelProblems(root, channel, `channels[${i}]`)));
  return problems;
}

/** Validates one channel entry (`{ "plugin": …, "config": … }`) as written in a page. */
export function channelEntryProblems(root: string, raw: unknown): Promise<string[]> {
  return channelProblems(root, raw, "channels[0]");
}
