/**
 * Loads the channel plugins a config names (by package name), validates each account's config
 * with the plugin's own schema, and builds its adapter.
 *
 * @module
 */

import type { ChannelMessageAdapter, HeraldLogger } from "@herald/core";
import {
  type ChannelPlugin,
  type ChannelPluginDeps,
  isMalformedSecretError,
} from "@herald/plugin-sdk/channel-message";
import type { FailureNoticeOptions } from "../bot/failureNotice.ts";
import { ConfigError, type ConfigIssue } from "../config/errors.ts";
import { didYouMean, parseWithIssues } from "../config/issues.ts";
import type { HeraldConfig } from "../config/schema.ts";
import { importFromApp, installCommand, PackageNotInstalledError } from "./importFromApp.ts";
import { type SecretReader, secretFieldPath } from "./secrets.ts";

/** One configured channel account, ready to run. */
export type LoadedChannel = {
  index: number;
  plugin: ChannelPlugin<unknown>;
  account: string;
  config: unknown;
  deps: ChannelPluginDeps;
  adapter: ChannelMessageAdapter;
  /** `allowBots` / `requireMention` set on this account in the config. */
  receive?: { allowBots?: boolean | undefined; requireMention?: boolean | undefined };
  /** The webhook body limit of this account set in the config, in bytes. */
  maxBodyBytes?: number;
  /** This account's gateway-failure notice (`false`: off even when the gateway sets one). */
  failureNotice?: FailureNoticeOptions | false;
};

/** herald's own channel plugins: a name close to one of them is a typo, not a missing install. */
export const KNOWN_PLUGINS = [
  "@herald/plugin-telegram",
  "@herald/plugin-discord",
  "@herald/plugin-matrix",
  "@herald/plugin-slack",
  "@herald/plugin-googlechat",
  "@herald/plugin-qa-channel",
];

/** The issue for a plugin package that cannot be imported: a typo's fix names the right package. */
function cannotLoad(
  name: string,
  path: string,
  error: unknown,
  preloaded: Record<string, unknown> | undefined,
  dir: string,
): ConfigIssue {
  const notFound = error instanceof PackageNotInstalledError;
  const known = KNOWN_PLUGINS.includes(name) || Object.hasOwn(preloaded ?? {}, name);
  const near =
    notFound && !known
      ? didYouMean(
          name,
          [...KNOWN_PLUGINS, ...Object.keys(preloaded ?? {})].filter((n) => n !== name),
        )
      : undefined;
  const message = notFound
    ? (error as Error).message
    : `cannot load "${name}": ${(error as Error).message}`;
  if (near) return { path, message, fix: `did you mean "${near}"? set ${path} to "${near}"` };
  return {
    path,
    message,
    fix: notFound
      ? `install it next to the config: ${installCommand(name, dir)}`
      : `check the package name; if it is right, reinstall it: ${installCommand(name, dir)}`,
  };
}

function isPlugin(value: unknown): value is ChannelPlugin<unknown> {
  const p = value as Partial<ChannelPlugin<unknown>> | undefined;
  return (
    !!p && typeof p.id === "string" && typeof p.createAdapter === "function" && !!p.configSchema
  );
}

/** Imports the plugin package `name` (or takes it from `preloaded`), or says why it cannot. */
async function pluginOf(
  name: string,
  path: string,
  dir: string,
  preloaded: Record<string, ChannelPlugin<unknown>> | undefined,
): Promise<{ plugin: ChannelPlugin<unknown> } | { issue: ConfigIssue }> {
  let plugin: unknown = preloaded && Object.hasOwn(preloaded, name) ? preloaded[name] : undefined;
  if (!plugin) {
    try {
      plugin = (await importFromApp<{ default?: unknown }>(name, [dir, process.cwd()])).default;
    } catch (error) {
      return { issue: cannotLoad(name, path, error, preloaded, dir) };
    }
  }
  if (!isPlugin(plugin))
    return {
      issue: {
        path,
        message: `"${name}" has no default export made with defineChannelPlugin`,
        fix: `name a herald channel plugin package (its main module does export default defineChannelPlugin({ … }))`,
      },
    };
  return { plugin };
}

/**
 * The issues of each channel's plugin `config` in a config whose top level is invalid (so
 * {@link loadPlugins} cannot run yet): one run reports a typo in `store` together with a typo in
 * a plugin's config, instead of showing the second only after the first is fixed. Validates
 * only (no adapter is created, no secret read); a channel entry without a `plugin` name is
 * skipped (the top level reports it).
 *
 * @param raw - the config as read, not validated.
 * @param dir - the config's folder (plugins resolve from there first).
 */
export async function channelConfigIssues(
  raw: unknown,
  dir: string,
  preloaded?: Record<string, ChannelPlugin<unknown>>,
): Promise<ConfigIssue[]> {
  const channels = (raw as { channels?: unknown } | null)?.channels;
  if (!Array.isArray(channels)) return [];
  const issues: ConfigIssue[] = [];
  for (const [index, channel] of channels.entries()) {
    const name = (channel as { plugin?: unknown } | null)?.plugin;
    if (typeof name !== "string") continue;
    const at = `channels[${index}]`;
    const found = await pluginOf(name, `${at}.plugin`, dir, preloaded);
    if ("issue" in found) {
      issues.push(found.issue);
      continue;
    }
    const parsed = parseWithIssues(
      found.plugin.configSchema,
      (channel as { config?: unknown }).config,
      [`${at}.config`],
    );
    if (!parsed.ok) issues.push(...parsed.issues);
  }
  return issues;
}

/**
 * Imports and configures every channel of `config`. Plugins given in `preloaded` (by package
 * name) are used instead of importing (tests, embedded apps).
 *
 * @throws {@link ConfigError} listing every channel whose plugin is missing or whose config is invalid.
 */
export async function loadPlugins(
  config: HeraldConfig,
  options: {
    logger: HeraldLogger;
    secrets: SecretReader;
    clock?: () => number;
    preloaded?: Record<string, ChannelPlugin<unknown>>;
    file?: string;
    /** Load only `channels[only]` (`herald doctor` checks one at a time); paths keep the index. */
    only?: number;
    /**
     * Folder of the config: plugin packages resolve from here first (the app's node_modules),
     * then from the current folder, then from the gateway's own dependencies.
     * @defaultValue process.cwd()
     */
    dir?: string;
  },
): Promise<LoadedChannel[]> {
  const issues: ConfigIssue[] = [];
  const loaded: LoadedChannel[] = [];
  const dir = options.dir ?? process.cwd();
  for (const [index, channel] of config.channels.entries()) {
    if (options.only !== undefined && index !== options.only) continue;
    const at = `channels[${index}]`;
    const found = await pluginOf(channel.plugin, `${at}.plugin`, dir, options.preloaded);
    if ("issue" in found) {
      issues.push(found.issue);
      continue;
    }
    const { plugin } = found;
    const parsed = parseWithIssues(plugin.configSchema, channel.config, [`${at}.config`]);
    if (!parsed.ok) {
      issues.push(...parsed.issues);
      continue;
    }
    const deps: ChannelPluginDeps = {
      accountId: channel.account,
      logger: options.logger.child({ channel: plugin.id, account: channel.account }),
      clock: options.clock ?? Date.now,
      secret: (name) =>
        options.secrets.read(name, `${at}.config${secretFieldPath(parsed.data, name)}`),
    };
    try {
      const adapter = plugin.createAdapter(parsed.data, deps);
      loaded.push({
        index,
        plugin,
        account: channel.account,
        config: parsed.data,
        deps,
        adapter,
        ...(channel.receive ? { receive: channel.receive } : {}),
        ...(channel.maxBodyBytes === undefined ? {} : { maxBodyBytes: channel.maxBodyBytes }),
        ...(channel.failureNotice === undefined ? {} : { failureNotice: channel.failureNotice }),
      });
    } catch (error) {
      // A secret that is not set is already a ConfigError with its path and fix: keep its issues.
      if (error instanceof ConfigError) {
        issues.push(...error.issues);
        continue;
      }
      // A malformed secret (the SDK's `readSecret`): at the setting that names it (C49).
      if (isMalformedSecretError(error)) {
        issues.push({
          path: `${at}.config.${error.setting}`,
          message: `${error.source} ${error.problem}`,
          fix: error.fix,
        });
        continue;
      }
      issues.push({
        path: `${at}.config`,
        message: (error as Error).message,
        fix: `correct this account's config or secret (see ${channel.plugin}'s README)`,
      });
    }
  }
  if (issues.length > 0) throw new ConfigError(options.file ?? "config", issues);
  return loaded;
}
