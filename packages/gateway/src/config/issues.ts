/**
 * zod issues → {@link ConfigIssue}s: the field path as written in the config, a message without
 * zod internals, and the fix (shared by the gateway config and every plugin's config). An unknown
 * key is reported at its own path with the closest known key ("did you mean").
 *
 * @module
 */
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";
import type { ConfigIssue } from "./errors.ts";

type ZodIssue = z.ZodError["issues"][number];

/** A zod issue path as written in the config: `channels[0].config.tokenEnv`. */
export function configPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (acc, key) =>
      typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key),
    "",
  );
}

const quoted = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(" | ");
const article = (word: string) => (/^[aeiou]/i.test(word) ? "an" : "a");

/**
 * The closest of `known` to `typo` when it is close enough to be a typo (edit distance ≤ 1/3 of
 * its length, at least 2 from 4 characters on; or the one known key it is a prefix of), else
 * undefined.
 */
export function didYouMean(typo: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const extended = known.filter((k) => k.startsWith(typo));
  if (typo.length >= 3 && extended.length === 1) return extended[0];
  const best = closest(typo, [...known]);
  const allowed = Math.max(typo.length >= 4 ? 2 : 1, Math.floor(typo.length / 3));
  return distance(typo, best) <= allowed ? best : undefined;
}

/** The fix for one zod issue at config path `path`: what to write instead. */
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
  const options = unionOptions(issue);
  if (options?.length) return `set ${field} to one of ${quoted(options)}`;
  if (issue.code === "invalid_value") return `set ${field} to one of ${quoted(issue.values)}`;
  if (issue.code === "invalid_type")
    return `give ${field} ${article(issue.expected)} ${issue.expected} value`;
  if (issue.code === "too_small")
    return `give ${field} a value ${issue.inclusive === false ? ">" : "≥"} ${String(issue.minimum)}${issue.origin === "string" ? " characters" : ""}`;
  if (issue.code === "too_big")
    return `give ${field} a value ${issue.inclusive === false ? "<" : "≤"} ${String(issue.maximum)}${issue.origin === "string" ? " characters" : ""}`;
  if (issue.code === "invalid_format") return `give ${field} a valid ${issue.format}`;
  return `correct ${field}: ${issue.message}`;
}

/** A discriminated union's options, without the `undefined` a defaulted discriminator adds. */
function unionOptions(issue: ZodIssue): unknown[] | undefined {
  if (issue.code !== "invalid_union") return undefined;
  const raw = issue as ZodIssue & { options?: readonly unknown[] };
  return raw.options?.filter((o) => o !== undefined && o !== null);
}

/** Known keys of the objects zod saw, by input object (filled by {@link parseWithIssues}). */
type KnownKeys = WeakMap<object, Set<string>>;

/**
 * Keys of a nested section written at the config's top level, and the section they belong in:
 * `{ "sqlite": … }` is a `store`, not a config ([H28] C52).
 */
const SECTION_OF_KEY: ReadonlyMap<string, string> = new Map([
  ["sqlite", "store"],
  ["postgres", "store"],
  ["port", "http"],
  ["host", "http"],
  ["level", "log"],
  ["tokenEnv", "console"],
]);

function unknownKeyIssues(
  keys: readonly string[],
  at: readonly PropertyKey[],
  known: readonly string[],
  input: unknown,
): ConfigIssue[] {
  // A known key the input already has is no rename target.
  const given = input && typeof input === "object" ? Object.keys(input) : [];
  const free = known.filter((k) => !given.includes(k));
  return keys.map((key) => {
    const path = configPath([...at, key]);
    const section = at.length === 0 ? SECTION_OF_KEY.get(key) : undefined;
    if (section && known.includes(section))
      return {
        path,
        message: `"${key}" belongs in the "${section}" section, not at the top level`,
        fix: `move it: "${section}": { "${key}": … }`,
      };
    const near = didYouMean(key, free);
    return {
      path,
      message: `unknown field "${key}"${near ? ` (did you mean "${near}"?)` : ""}`,
      fix: near
        ? `rename "${key}" to "${near}"`
        : `remove "${key}"${known.length ? ` (known fields: ${known.join(", ")})` : ""}`,
    };
  });
}

/** Keys that every branch of a union refused as unknown (a typo of the union's key, e.g. `sqlit`). */
function unionUnknownKeys(issue: ZodIssue): string[] {
  if (issue.code !== "invalid_union" || !issue.errors?.length) return [];
  const perBranch = issue.errors.map(
    (branch) =>
      new Set(
        branch.flatMap((i) =>
          i.code === "unrecognized_keys" && i.path.length === 0 ? i.keys : [],
        ),
      ),
  );
  return [...(perBranch[0] ?? [])].filter((key) => perBranch.every((b) => b.has(key)));
}

function toIssues(
  issue: ZodIssue,
  prefix: readonly PropertyKey[],
  known: KnownKeys,
): ConfigIssue[] {
  const at = [...prefix, ...issue.path];
  const input = (issue as { input?: unknown }).input;
  const knownHere = (): string[] =>
    input && typeof input === "object" ? [...(known.get(input) ?? [])].sort() : [];
  if (issue.code === "unrecognized_keys")
    return unknownKeyIssues(issue.keys, at, knownHere(), input);
  const unknown = unionUnknownKeys(issue);
  if (unknown.length) return unknownKeyIssues(unknown, at, knownHere(), input);
  const path = configPath(at);
  const options = unionOptions(issue);
  const message = options?.length
    ? `Invalid input: expected one of ${quoted(options)}`
    : issue.message;
  return [{ path, message, fix: configFix(issue, path) }];
}

/** Turns zod issues into {@link ConfigIssue}s with a field path and a suggested fix. */
export function configIssues(
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
  known: KnownKeys = new WeakMap(),
): ConfigIssue[] {
  return error.issues.flatMap((issue) => toIssues(issue, prefix, known));
}

/**
 * Validates `raw` with `schema`; on failure returns the {@link ConfigIssue}s (paths under
 * `prefix`), with "did you mean" for unknown keys.
 */
export function parseWithIssues<T>(
  schema: z.ZodType<T>,
  raw: unknown,
  prefix: readonly PropertyKey[] = [],
): { ok: true; data: T } | { ok: false; issues: ConfigIssue[] } {
  const known: KnownKeys = new WeakMap();
  const result = schema.safeParse(raw, {
    reportInput: true,
    error: (iss) => {
      const shape = (iss.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def
        ?.shape;
      if (iss.code === "unrecognized_keys" && shape && iss.input && typeof iss.input === "object") {
        const set = known.get(iss.input) ?? new Set<string>();
        for (const k of Object.keys(shape)) set.add(k);
        known.set(iss.input, set);
      }
      return undefined;
    },
  });
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, issues: configIssues(result.error, prefix, known) };
}
