/**
 * Loads `herald.config.json` (or `.ts` / `.mjs` via dynamic import) and validates it.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { docsLink } from "../docsLinks.ts";
import { channelConfigIssues } from "../plugins/loadPlugins.ts";
import { ConfigError } from "./errors.ts";
import { parseWithIssues } from "./issues.ts";
import { type HeraldConfig, heraldConfigSchema } from "./schema.ts";

/** A loaded config and where it came from (relative paths resolve against `dir`). */
export type LoadedConfig = { file: string; dir: string; config: HeraldConfig };

/** The file names `herald start` looks for, in order. */
export const CONFIG_FILE_NAMES = ["herald.config.ts", "herald.config.mjs", "herald.config.json"];

export { configFix, configIssues, configPath } from "./issues.ts";

/** Validates a config object. @throws {@link ConfigError} naming each bad field and the fix. */
export function parseConfig(raw: unknown, file = "config"): HeraldConfig {
  const result = parseWithIssues(heraldConfigSchema, raw);
  if (!result.ok) throw new ConfigError(file, result.issues);
  return result.data;
}

/**
 * Validates a config object like {@link parseConfig}, and when its top level is invalid also
 * each channel's plugin `config` (plugins imported from `dir`, or taken from `preloaded`), so
 * one run names every problem.
 * @throws {@link ConfigError} naming each bad field and the fix.
 */
export async function validateConfig(
  raw: unknown,
  file: string,
  dir: string,
  preloaded?: Parameters<typeof channelConfigIssues>[2],
): Promise<HeraldConfig> {
  const result = parseWithIssues(heraldConfigSchema, raw);
  if (result.ok) return result.data;
  // A plugin issue the top level already names (an uninstalled plugin's name) is not repeated.
  const known = new Set(result.issues.map((i) => `${i.path}\0${i.message}`));
  const more = (await channelConfigIssues(raw, dir, preloaded)).filter(
    (i) => !known.has(`${i.path}\0${i.message}`),
  );
  throw new ConfigError(file, [...result.issues, ...more]);
}

/**
 * Finds and loads the config: `path` when given, else the first of {@link CONFIG_FILE_NAMES} in
 * `cwd`.
 *
 * @throws {@link ConfigError} when the file is missing, is not valid JSON, or fails validation:
 *   with the top level's issues, those of each channel's plugin `config` (its plugin imported
 *   from the config's folder to validate it), so one run names every problem.
 */
export async function loadConfig(path?: string, cwd = process.cwd()): Promise<LoadedConfig> {
  const file = path
    ? resolve(cwd, path)
    : CONFIG_FILE_NAMES.map((n) => resolve(cwd, n)).find((f) => existsSync(f));
  if (!file || !existsSync(file)) {
    throw new ConfigError(file ?? resolve(cwd, "herald.config.json"), [
      {
        path: "",
        message: "config file not found",
        fix: `create herald.config.json (see ${docsLink("configure")}) or pass --config <file>`,
      },
    ]);
  }
  let raw: unknown;
  if (extname(file) === ".json") {
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new ConfigError(file, [
        { path: "", message: `not valid JSON: ${(error as Error).message}` },
      ]);
    }
  } else {
    const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    raw = mod.default;
  }
  const dir = dirname(file);
  return { file, dir, config: await validateConfig(raw, file, dir) };
}
