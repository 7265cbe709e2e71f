/**
 * Loads `herald.config.json` (or `.ts` / `.mjs` via dynamic import) and validates it.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { z } from "zod";
import { ConfigError, type ConfigIssue } from "./errors.ts";
import { type HeraldConfig, heraldConfigSchema } from "./schema.ts";

/** A loaded config and where it came from (relative paths resolve against `dir`). */
export type LoadedConfig = { file: string; dir: string; config: HeraldConfig };

/** The file names `herald start` looks for, in order. */
export const CONFIG_FILE_NAMES = ["herald.config.ts", "herald.config.mjs", "herald.config.json"];

/** A zod issue path as written in the config: `channels[0].config.tokenEnv`. */
export function configPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (acc, key) =>
      typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key),
    "",
  );
}

/** Turns zod issues into {@link ConfigIssue}s with a field path and a suggested fix. */
export function configIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = configPath(issue.path);
    let fix: string | undefined;
    if (issue.code === "unrecognized_keys")
      fix = `remove ${issue.keys.map((k) => `"${k}"`).join(", ")} (unknown field)`;
    else if (path.endsWith("Env"))
      fix =
        "name the environment variable that holds the secret; never put the secret itself in the config";
    else if (path === "channels" && issue.code === "invalid_type")
      fix =
        'use a list: "channels": [{ "plugin": "@herald/plugin-…", "account": "main", "config": { … } }]';
    else if (issue.code === "invalid_union" && path === "store")
      fix =
        'use { "sqlite": { "path": ".herald/state.db" } } or { "postgres": { "urlEnv": "HERALD_DATABASE_URL" } }';
    return { path, message: issue.message, ...(fix ? { fix } : {}) };
  });
}

/** Validates a config object. @throws {@link ConfigError} naming each bad field and the fix. */
export function parseConfig(raw: unknown, file = "config"): HeraldConfig {
  const result = heraldConfigSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(file, configIssues(result.error));
  return result.data;
}

/**
 * Finds and loads the config: `path` when given, else the first of {@link CONFIG_FILE_NAMES} in
 * `cwd`.
 *
 * @throws {@link ConfigError} when the file is missing, is not valid JSON, or fails validation.
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
        fix: "create herald.config.json (see docs/getting-started.md) or pass --config <file>",
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
  return { file, dir: dirname(file), config: parseConfig(raw, file) };
}
