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
