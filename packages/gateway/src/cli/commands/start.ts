/**
 * `herald start`: runs the gateway of a config until SIGINT / SIGTERM.
 *
 * @module
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../../config/errors.ts";
import { type BotHandler, createGateway } from "../../gateway.ts";
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

/** Starts the gateway and keeps running. */
export async function startCommand(configPath: string | undefined): Promise<void> {
  const ctx = await cliContext(configPath);
  const { config, dir } = ctx.loaded;
  const channels = await cliChannels(ctx);
  const handler = config.handler ? await importHandler(dir, config.handler) : undefined;
  const gateway = createGateway({
    store: ctx.store,
    channels,
    ...(handler ? { handler } : {}),
    http: config.http,
    logger: ctx.logger,
    delivery: Object.fromEntries(
      Object.entries(config.delivery).filter(([, v]) => v !== undefined),
    ),
  });
  gateway.handleSignals();
  await gateway.start();
  process.stdout.write(
    `herald gateway running: ${gateway.url ?? "(no http)"} — ${channels.length} channel(s); Ctrl-C stops\n`,
  );
}
