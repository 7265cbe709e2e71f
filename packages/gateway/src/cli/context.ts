/**
 * What most CLI commands start from: the config, secrets, logger, store and channels.
 *
 * @module
 */
import type { HeraldLogger, MessageStateStore } from "@herald/core";
import { type LoadedConfig, loadConfig } from "../config/load.ts";
import { createLogger } from "../logger.ts";
import { type LoadedChannel, loadPlugins } from "../plugins/loadPlugins.ts";
import { SecretReader } from "../plugins/secrets.ts";
import { openStore } from "../store/openStore.ts";

/** A loaded CLI context. Close the store when done. */
export type CliContext = {
  loaded: LoadedConfig;
  secrets: SecretReader;
  logger: HeraldLogger;
  store: MessageStateStore;
};

/**
 * Loads config, secrets, logger and store (not the channels). `lock` takes the store's
 * one-gateway lock (for `herald start`; readers leave it off); `reader` never creates a store
 * (a `:memory:` or missing store is an error saying so).
 */
export async function cliContext(
  configPath: string | undefined,
  quiet = false,
  lock = false,
  reader = false,
): Promise<CliContext> {
  const base = await cliBase(configPath, quiet);
  return { ...base, store: await cliStore(base, lock, reader) };
}

/** A CLI context before its store is opened: config, secrets, logger. */
export type CliBase = Omit<CliContext, "store">;

/**
 * Loads config, secrets and logger, and opens nothing: `herald start` validates the channels
 * and secrets with it before {@link cliStore} creates the store, so a refused start leaves no
 * `.herald/state.db` behind.
 */
export async function cliBase(configPath: string | undefined, quiet = false): Promise<CliBase> {
  const loaded = await loadConfig(configPath);
  const secrets = new SecretReader();
  const logger = createLogger({
    level: quiet ? "warn" : loaded.config.log.level,
    secrets,
    out: process.stderr,
  });
  return { loaded, secrets, logger };
}

/** Opens the store of a {@link CliBase} (`lock` and `reader` as in {@link cliContext}). */
export function cliStore(base: CliBase, lock = false, reader = false): Promise<MessageStateStore> {
  return openStore(base.loaded.config, base.loaded.dir, process.env, { lock, reader });
}

/** Loads the configured channels of a context. */
export function cliChannels(ctx: CliBase): Promise<LoadedChannel[]> {
  return loadPlugins(ctx.loaded.config, {
    logger: ctx.logger,
    secrets: ctx.secrets,
    file: ctx.loaded.file,
    dir: ctx.loaded.dir,
  });
}
