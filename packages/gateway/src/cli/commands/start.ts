/**
 * `herald start`: runs the gateway of a config until SIGINT / SIGTERM.
 *
 * @module
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../../config/errors.ts";
import { loadConfig } from "../../config/load.ts";
import { receivePolicyOf } from "../../config/schema.ts";
import { type BotHandler, createGateway } from "../../gateway.ts";
import { httpListenError, httpNotice } from "../../herald.ts";
import { cliChannels, cliContext } from "../context.ts";

/** Imports the handler module a config names (`export default async (turn) => …`). */
export async function importHandler(dir: string, path: string): Promise<BotHandler> {
  const file = resolve(dir, path);
  let mod: { default?: unknown; onMessage?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as typeof mod;
  } catch (error) {
    throw new ConfigError("config", [
      { path: "handler", message: `cannot import ${file}: ${(error as Error).message}` },
    ]);
  }
  const handler = mod.default ?? mod.onMessage;
  if (typeof handler !== "function") {
    throw new ConfigError("config", [
      {
        path: "handler",
        message: `${file} exports no handler`,
        fix: "export default async function (turn) { await turn.reply(...) }",
      },
    ]);
  }
  return handler as BotHandler;
}

/** The handler of `herald start --echo`: answers every message with its own text. */
export const echoHandler: BotHandler = async (turn) => {
  await turn.reply(turn.text);
};

/** What `herald start` prints when it refuses to run without a handler. */
export function missingHandlerError(file: string): ConfigError {
  return new ConfigError(file, [
    {
      path: "handler",
      message: "no bot handler: herald start would receive messages and answer none",
      fix: 'add "handler": "./bot.mjs" (a module with export default async (turn) => { await turn.reply(...) }), or run herald start --echo to answer every message with its own text',
    },
  ]);
}

/**
 * Starts the gateway and keeps running.
 *
 * @throws ConfigError when the config names no handler and `echo` is off (before opening anything).
 */
export async function startCommand(
  configPath: string | undefined,
  options: { echo?: boolean; out?: { write(text: string): unknown } } = {},
): Promise<void> {
  const out = options.out ?? process.stdout;
  const loaded = await loadConfig(configPath);
  if (!loaded.config.handler && !options.echo) throw missingHandlerError(loaded.file);
  const handler = loaded.config.handler
    ? await importHandler(loaded.dir, loaded.config.handler)
    : echoHandler;
  const ctx = await cliContext(configPath, false, true);
  const { config } = ctx.loaded;
  try {
    const channels = await cliChannels(ctx);
    const gateway = createGateway({
      store: ctx.store,
      channels,
      handler,
      http: config.http,
      logger: ctx.logger,
      redact: (text) => ctx.secrets.redact(text),
      delivery: Object.fromEntries(
        Object.entries(config.delivery).filter(([, v]) => v !== undefined),
      ),
      receive: receivePolicyOf(config),
      typing: config.typing,
    });
    gateway.handleSignals();
    try {
      await gateway.start();
    } catch (error) {
      await gateway.stop().catch(() => {});
      throw (config.http ? httpListenError(error, config.http) : undefined) ?? error;
    }
    if (!config.handler)
      out.write("herald: echo mode (--echo): every message is answered with its own text\n");
    if (gateway.url) out.write(`${httpNotice(gateway.url)}\n`);
    out.write(
      `herald gateway running: ${gateway.url ?? "(no http)"} — ${channels.length} channel(s); Ctrl-C stops\n`,
    );
  } catch (error) {
    await ctx.store.close();
    throw error;
  }
}
