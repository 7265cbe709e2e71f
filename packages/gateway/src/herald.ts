/**
 * `herald(config)`: a gateway from a config object in one call — what the README's 10-line bot
 * uses. Validates the config (errors name the field path and the fix), reads secrets from the
 * environment, opens the store, loads the channel plugins and creates the gateway.
 *
 * @module
 */
import { ConfigError } from "./config/errors.ts";
import { gatewayOptionsOf } from "./config/gatewayOptions.ts";
import { validateConfig } from "./config/load.ts";
import type { HeraldConfig } from "./config/schema.ts";
import { createGateway, type Gateway, type GatewayOptions } from "./gateway.ts";
import { httpListenError, httpNotice } from "./http/listenErrors.ts";
import { createLogger } from "./logger.ts";
import { loadPlugins } from "./plugins/loadPlugins.ts";
import { SecretReader } from "./plugins/secrets.ts";
import { openStore } from "./store/openStore.ts";

/** The config input: `herald.config.json` as an object (defaults filled in). */
export type HeraldConfigInput = Partial<{ [K in keyof HeraldConfig]: unknown }>;

/**
 * Creates a gateway from a config object. Call `onMessage(handler)` and `start()`.
 *
 * `start()` opens the HTTP server (`/healthz`, `/metrics`, webhooks) on `http.host:http.port`,
 * 127.0.0.1:8787 by default, and prints that address to stderr. The SQLite store
 * (`.herald/state.db` by default) is locked to this gateway until `stop()`.
 *
 * @param options.dir - folder relative paths (SQLite file, handler) and plugins resolve from. @defaultValue process.cwd()
 * `start()` refuses (ConfigError at `handler`) when a configured channel receives messages and
 * no handler was given (`onMessage` or `options.handler`).
 *
 * @throws ConfigError naming each bad field and the fix; StoreLockedError when another gateway
 *   has the SQLite file open; StoreUnavailableError.
 * @example
 * const bot = await herald({ channels: [{ plugin: "@herald/plugin-qa-channel", config: { baseUrl } }] });
 * bot.onMessage(async (turn) => { await turn.reply(`You said: ${turn.text}`); });
 * await bot.start();
 */
export async function herald(
  config: HeraldConfigInput,
  options: {
    dir?: string;
    env?: NodeJS.ProcessEnv;
    /** Where the start notice (the HTTP address) is written. @defaultValue process.stderr */
    notice?: { write(text: string): unknown };
  } & Pick<GatewayOptions, "handler" | "activityLog" | "typing"> = {},
): Promise<Gateway> {
  const dir = options.dir ?? process.cwd();
  const parsed = await validateConfig(config, "config", dir);
  const env = options.env ?? process.env;
  const secrets = new SecretReader(env);
  const logger = createLogger({ level: parsed.log.level, secrets, out: process.stderr });
  // Channels, plugin configs and secrets are checked before the store is opened: a refused
  // config creates no store file and no lock.
  const channels = await loadPlugins(parsed, { logger, secrets, dir });
  const receives = channels.some((c) => c.plugin.createReceiver !== undefined);
  const fromConfig = gatewayOptionsOf(parsed, secrets);
  const store = await openStore(parsed, dir, env, { lock: true, logger });
  let gateway: Gateway;
  try {
    gateway = createGateway({
      ...fromConfig,
      store,
      channels,
      logger,
      redact: (text) => secrets.redact(text),
      typing: options.typing ?? fromConfig.typing,
      ...(options.handler ? { handler: options.handler } : {}),
      ...(options.activityLog !== undefined ? { activityLog: options.activityLog } : {}),
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const start = gateway.start.bind(gateway);
  const stop = gateway.stop.bind(gateway);
  const onMessage = gateway.onMessage.bind(gateway);
  let handled = options.handler !== undefined;
  const notice = options.notice ?? process.stderr;
  const wrapped: Gateway = Object.assign(gateway, {
    onMessage(handler: Parameters<Gateway["onMessage"]>[0]) {
      handled = true;
      onMessage(handler);
    },
    async start() {
      // Receiving with nobody to answer would take every message and answer none: refuse.
      if (receives && !handled) throw missingOnMessageError();
      try {
        await start();
      } catch (error) {
        await wrapped.stop().catch(() => {}); // a failed start lets the store go
        throw httpListenError(error, parsed.http) ?? error;
      }
      if (gateway.url) notice.write(`${httpNotice(gateway.url)}\n`);
    },
    async stop(drainMs?: number) {
      await stop(drainMs);
      await store.close();
    },
  });
  return wrapped;
}

/** `start()` on a gateway that receives messages but has no handler. */
function missingOnMessageError(): ConfigError {
  return new ConfigError("herald()", [
    {
      path: "handler",
      message: "no bot handler: the gateway would receive messages and answer none",
      fix: "call bot.onMessage(async (turn) => { … }) before bot.start()",
    },
  ]);
}
