/**
 * `herald(config)`: a gateway from a config object in one call — what the README's 10-line bot
 * uses. Validates the config (errors name the field path and the fix), reads secrets from the
 * environment, opens the store, loads the channel plugins and creates the gateway.
 *
 * @module
 */
import { parseConfig } from "./config/load.ts";
import type { HeraldConfig } from "./config/schema.ts";
import { createGateway, type Gateway, type GatewayOptions } from "./gateway.ts";
import { createLogger } from "./logger.ts";
import { loadPlugins } from "./plugins/loadPlugins.ts";
import { SecretReader } from "./plugins/secrets.ts";
import { openStore } from "./store/openStore.ts";

/** The config input: `herald.config.json` as an object (defaults filled in). */
export type HeraldConfigInput = Partial<{ [K in keyof HeraldConfig]: unknown }>;

/**
 * Creates a gateway from a config object. Call `onMessage(handler)` and `start()`.
 *
 * @param options.dir - folder relative paths (SQLite file, handler) and plugins resolve from. @defaultValue process.cwd()
 * @throws ConfigError naming each bad field and the fix; StoreUnavailableError.
 * @example
 * const bot = await herald({ channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl } }] });
 * bot.onMessage(async (turn) => { await turn.reply(`You said: ${turn.text}`); });
 * await bot.start();
 */
export async function herald(
  config: HeraldConfigInput,
  options: { dir?: string; env?: NodeJS.ProcessEnv } & Pick<
    GatewayOptions,
    "handler" | "activityLog"
  > = {},
): Promise<Gateway> {
  const parsed = parseConfig(config);
  const dir = options.dir ?? process.cwd();
  const secrets = new SecretReader(options.env ?? process.env);
  const logger = createLogger({ level: parsed.log.level, secrets, out: process.stderr });
  const store = await openStore(parsed, dir, options.env ?? process.env);
  const channels = await loadPlugins(parsed, { logger, secrets, dir });
  const gateway = createGateway({
    store,
    channels,
    http: parsed.http,
    logger,
    delivery: Object.fromEntries(
      Object.entries(parsed.delivery).filter(([, v]) => v !== undefined),
    ),
    ...(options.handler ? { handler: options.handler } : {}),
    ...(options.activityLog !== undefined ? { activityLog: options.activityLog } : {}),
  });
  const stop = gateway.stop.bind(gateway);
  return Object.assign(gateway, {
    async stop(drainMs?: number) {
      await stop(drainMs);
      await store.close();
    },
  });
}
