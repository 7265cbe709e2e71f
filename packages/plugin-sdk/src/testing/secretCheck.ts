/**
 * Builds a plugin's adapter with given secret values, for the tests that every plugin has
 * ([H28] C49): a secret with a trailing newline is accepted (trimmed by the SDK's `readSecret`),
 * a malformed one is refused at start with a `MalformedSecretError` naming the setting.
 * Runner-free: returns what happened, the caller asserts.
 *
 * @module
 */
import { silentLogger } from "@herald/core";
import type { ChannelPlugin } from "../channel-message/plugin.ts";

/** What {@link createAdapterWithSecrets} saw. */
export type SecretCheckResult = {
  /** The secret names the plugin asked for, in order. */
  asked: string[];
  /** What `createAdapter` threw, or undefined when it built the adapter. */
  error: unknown;
};

/**
 * Calls `plugin.createAdapter(config, deps)` with `deps.secret(name)` answering from `values`
 * (a name missing there throws, naming it).
 *
 * @example
 * const { error } = createAdapterWithSecrets(telegram, config, { TELEGRAM_BOT_TOKEN: "nope" });
 * expect(error).toMatchObject({ name: "MalformedSecretError", setting: "tokenEnv" });
 */
export function createAdapterWithSecrets<TConfig>(
  plugin: ChannelPlugin<TConfig>,
  config: TConfig,
  values: Readonly<Record<string, string>>,
): SecretCheckResult {
  const asked: string[] = [];
  try {
    plugin.createAdapter(config, {
      accountId: "main",
      logger: silentLogger,
      clock: Date.now,
      secret: (name) => {
        asked.push(name);
        if (!Object.hasOwn(values, name)) throw new Error(`no secret ${name} in the test`);
        return values[name] as string;
      },
    });
    return { asked, error: undefined };
  } catch (error) {
    return { asked, error };
  }
}

/** A malformed value of one secret, and the config setting its error must name. */
export type MalformedSecretCase = {
  /** The secret's name (an env var), as `deps.secret(name)` asks for it. */
  name: string;
  /** The malformed value. */
  value: string;
  /** The config setting that names the secret, e.g. `tokenEnv`. */
  setting: string;
};

/**
 * The checks every plugin's secrets get ([H28] C49), runner-free: each `good` value with a
 * trailing newline (as `echo … > file` writes it) must be accepted (trimmed), and each
 * `malformed` case must be refused at start with a `MalformedSecretError` whose `setting` and
 * `source` are the case's, whose message and fix name both, and which never shows the value.
 *
 * @returns one line per problem found; empty when every check holds.
 * @example
 * expect(secretShapeProblems(plugin, config, { TOKEN: "123:abc" }, [
 *   { name: "TOKEN", value: "bot123:abc", setting: "tokenEnv" },
 * ])).toEqual([]);
 */
export function secretShapeProblems<TConfig>(
  plugin: ChannelPlugin<TConfig>,
  config: TConfig,
  good: Readonly<Record<string, string>>,
  malformed: readonly MalformedSecretCase[],
): string[] {
  const problems: string[] = [];
  const withNewlines = Object.fromEntries(
    Object.entries(good).map(([name, value]) => [name, `${value}\n`]),
  );
  const trimmed = createAdapterWithSecrets(plugin, config, withNewlines).error;
  if (trimmed !== undefined)
    problems.push(`good secrets with a trailing newline were refused: ${String(trimmed)}`);
  for (const { name, value, setting } of malformed) {
    const at = `${name} = ${JSON.stringify(value)}`;
    const { error } = createAdapterWithSecrets(plugin, config, { ...good, [name]: value });
    const e = error as {
      name?: string;
      setting?: string;
      source?: string;
      message?: string;
      fix?: string;
    };
    if (e?.name !== "MalformedSecretError") {
      problems.push(`${at}: expected a MalformedSecretError, got ${String(error)}`);
      continue;
    }
    if (e.setting !== setting) problems.push(`${at}: setting ${e.setting}, expected ${setting}`);
    if (e.source !== name) problems.push(`${at}: source ${e.source}, expected ${name}`);
    const text = `${e.message} ${e.fix}`;
    if (!text.includes(name)) problems.push(`${at}: the error does not name ${name}`);
    if (!text.includes(setting)) problems.push(`${at}: the error does not name ${setting}`);
    if (value.trim() && text.includes(value.trim()))
      problems.push(`${at}: the error shows the value`);
  }
  return problems;
}
