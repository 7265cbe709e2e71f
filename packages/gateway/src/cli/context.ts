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
  const loaded = await loadConfig(configPath);
  const secrets = new SecretReader();
  const logger = createLogger({
    level: quiet ? "warn" : loaded.config.log.level,
    secrets,
    out: process.stderr,
  });
  const store = await openStore(loaded.config, loaded.dir, process.env, { lock, reader });
  return { loaded, secrets, logger, store };
}

/** Loads the configured channels of a context. */
export function cliChannels(ctx: CliContext): Promise<LoadedChannel[]> {
  return loadPlugins(ctx.loaded.config, {
    logger: ctx.logger,
    secrets: ctx.secrets,
    file: ctx.loaded.file,
    dir: ctx.loaded.dir,
  });
}
