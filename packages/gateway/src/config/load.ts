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

type ZodIssue = z.ZodError["issues"][number];

const quoted = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(" | ");

/**
 * The fix for one zod issue at config path `path` (shared by the gateway config and every
 * plugin's config): what to write instead.
 */
export function configFix(issue: ZodIssue, path: string): string {
  const field = path || "the config";
  if (issue.code === "unrecognized_keys")
    return `remove ${issue.keys.map((k) => `"${k}"`).join(", ")} (unknown field)`;
  if (path.endsWith("Env"))
    return "name the environment variable that holds the secret; never put the secret itself in the config";
  if (path === "channels" && issue.code === "invalid_type")
    return 'use a list: "channels": [{ "plugin": "@herald/plugin-…", "account": "main", "config": { … } }]';
  if (issue.code === "invalid_union" && path === "store")
    return 'use { "sqlite": { "path": ".herald/state.db" } } or { "postgres": { "urlEnv": "HERALD_DATABASE_URL" } }';
  const raw = issue as ZodIssue & { options?: readonly unknown[]; values?: readonly unknown[] };
  const options = raw.options?.filter((o) => o !== undefined && o !== null);
  if (issue.code === "invalid_union" && options?.length)
    return `set ${field} to one of ${quoted(options)}`;
  if (issue.code === "invalid_value") return `set ${field} to one of ${quoted(issue.values)}`;
  if (issue.code === "invalid_type") return `give ${field} a ${issue.expected} value`;
  if (issue.code === "too_small")
    return `give ${field} a value ${issue.inclusive === false ? ">" : "≥"} ${String(issue.minimum)}${issue.origin === "string" ? " characters" : ""}`;
  if (issue.code === "too_big")
    return `give ${field} a value ${issue.inclusive === false ? "<" : "≤"} ${String(issue.maximum)}${issue.origin === "string" ? " characters" : ""}`;
  if (issue.code === "invalid_format") return `give ${field} a valid ${issue.format}`;
  return `correct ${field}: ${issue.message}`;
}

/** Turns zod issues into {@link ConfigIssue}s with a field path and a suggested fix. */
export function configIssues(
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
): ConfigIssue[] {
  return error.issues.map((issue) => {
    const path = configPath([...prefix, ...issue.path]);
    return { path, message: issue.message, fix: configFix(issue, path) };
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
