/**
 * `herald start`: runs the gateway of a config until SIGINT / SIGTERM.
 *
 * The HTTP socket is bound first, right after the config is read: `/livez` answers (and
 * `/healthz` says `starting`, webhooks get 503 + `Retry-After`) while the handler module, the
 * store (migrations, locks), the channel plugins and the gateway load — so a restart is visible
 * to probes within a second ([H20]). This module keeps its static imports light for that
 * reason; the gateway, store and plugins are imported once the socket is bound.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { HeraldError } from "@herald/core";
import type { AccountHealth } from "../../accounts/AccountSupervisor.ts";
import type { BotActionHandler, BotReactionHandler } from "../../bot/features.ts";
import { ConfigError, type ConfigIssue } from "../../config/errors.ts";
import { loadConfig } from "../../config/load.ts";
import type { HeraldConfig } from "../../config/schema.ts";
import { docsLink } from "../../docsLinks.ts";
import type { BotHandler } from "../../gateway.ts";
import { httpListenError, httpNotice } from "../../http/listenErrors.ts";
import { bindHttpListener, type HttpListener } from "../../http/listener.ts";

/** Imports the handler module a config names (`export default async (turn) => …`). */
export async function importHandler(dir: string, path: string): Promise<BotHandler> {
  const file = resolve(dir, path);
  if (!existsSync(file)) {
    throw new ConfigError("config", [
      {
        path: "handler",
        message: `handler file not found: ${file} ("${path}" resolved against the config's folder ${dir})`,
        fix: `handler paths are relative to the config file, not the current folder: set "handler" to the module's path from ${dir} (e.g. "./bot.mjs")`,
      },
    ]);
  }
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

/**
 * The click and reaction handlers a handler module may export besides its message handler
 * ([H23]): `export async function onAction(action) {…}`, `export async function onReaction(r) {…}`.
 *
 * @throws ConfigError when one is exported but is not a function.
 */
export async function importHandlerHooks(
  dir: string,
  path: string,
): Promise<{ onAction?: BotActionHandler; onReaction?: BotReactionHandler }> {
  const mod = (await import(pathToFileURL(resolve(dir, path)).href)) as Record<string, unknown>;
  const hooks: { onAction?: BotActionHandler; onReaction?: BotReactionHandler } = {};
  for (const name of ["onAction", "onReaction"] as const) {
    const fn = mod[name];
    if (fn === undefined) continue;
    if (typeof fn !== "function")
      throw new ConfigError("config", [
        { path: "handler", message: `${path} exports ${name}, but it is not a function` },
      ]);
    hooks[name] = fn as never;
  }
  return hooks;
}

/** The handler of `herald start --echo`: answers every message with its own text. */
export const echoHandler: BotHandler = async (turn) => {
  await turn.reply(turn.text);
};

const NO_HANDLER: ConfigIssue = {
  path: "handler",
  message: "no bot handler: herald start would receive messages and answer none",
  fix: 'add "handler": "./bot.mjs" (a module with export default async (turn) => { await turn.reply(...) }), or run herald start --echo to answer every message with its own text',
};
const NO_CHANNELS: ConfigIssue = {
  path: "channels",
  message: "no channels: herald start would receive nothing and send nothing",
  fix: `add a channel account: "channels": [{ "plugin": "@herald/plugin-telegram", "config": { "tokenEnv": "TELEGRAM_BOT_TOKEN" } }] (see ${docsLink("configure")})`,
};

/** What `herald start` prints when it refuses to run without a handler. */
export function missingHandlerError(file: string): ConfigError {
  return new ConfigError(file, [NO_HANDLER]);
}

/**
 * The problems that make `herald start` pointless, found before anything opens: no handler
 * (without `--echo`), no channel.
 */
export function startIssues(config: HeraldConfig, echo: boolean): ConfigIssue[] {
  return [
    ...(!config.handler && !echo ? [NO_HANDLER] : []),
    ...(config.channels.length === 0 ? [NO_CHANNELS] : []),
  ];
}

/**
 * The accounts stopped at start because their credentials were rejected, each with its error
 * and fix (the detail names the fix and `herald doctor`). Thrown as one error when every
 * account is stopped: a gateway with no account up would only look like a hang.
 */
export class AllAccountsStoppedError extends HeraldError {
  constructor(stopped: readonly AccountHealth[]) {
    super(
      "HERALD_ALL_ACCOUNTS_STOPPED",
      `no account could start, so herald start stops:\n${stopped.map(describeStopped).join("\n")}`,
    );
  }
}

/** One stopped account for the operator: `telegram/main stopped: <error and fix>`. */
export function describeStopped(h: AccountHealth): string {
  const name = `${h.channel}/${h.account}`;
  const raw = h.detail ?? "credentials rejected";
  const detail = raw.startsWith(`${name}: `) ? raw.slice(name.length + 2) : raw;
  const doctor = /herald doctor/.test(detail) ? "" : " (run herald doctor for details)";
  return `  - ${name} stopped: ${detail}${doctor}`;
}

/**
 * Starts the gateway and keeps running.
 *
 * @throws ConfigError when the config names no handler and `echo` is off, or no channel (before
 *   opening anything).
 * @throws AllAccountsStoppedError when every account was stopped at start (credentials rejected);
 *   with some accounts up it keeps running and prints each stopped account on `err`.
 */
export async function startCommand(
  configPath: string | undefined,
  options: {
    echo?: boolean;
    out?: { write(text: string): unknown };
    err?: { write(text: string): unknown };
  } = {},
): Promise<void> {
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const loaded = await loadConfig(configPath);
  const issues = startIssues(loaded.config, options.echo === true);
  if (issues.length > 0) throw new ConfigError(loaded.file, issues);
  const address = loaded.config.http;
  let listener: HttpListener | undefined;
  if (address) {
    try {
      listener = await bindHttpListener(address);
    } catch (error) {
      throw httpListenError(error, address) ?? error;
    }
  }
  try {
    await runGateway(configPath, loaded.dir, loaded.config, listener, out, err);
  } catch (error) {
    await listener?.close();
    throw error;
  }
}

/**
 * Lets the event loop take and answer the requests waiting on the socket (a probe's `/livez`):
 * module loading and the store's open are synchronous, and a chain of resolved promises never
 * reaches the poll phase. Two turns: one accepts a connection, the next reads its request.
 */
async function letRequestsIn(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Everything after the socket is bound: handler, plugins and secrets (checked first), store, the gateway. */
async function runGateway(
  configPath: string | undefined,
  dir: string,
  first: HeraldConfig,
  listener: HttpListener | undefined,
  out: { write(text: string): unknown },
  err: { write(text: string): unknown },
): Promise<void> {
  await letRequestsIn();
  const handler = first.handler ? await importHandler(dir, first.handler) : echoHandler;
  const hooks = first.handler ? await importHandlerHooks(dir, first.handler) : {};
  await letRequestsIn();
  const { createGateway } = await import("../../gateway.ts");
  const { gatewayOptionsOf } = await import("../../config/gatewayOptions.ts");
  await letRequestsIn();
  const { cliBase, cliChannels, cliStore } = await import("../context.ts");
  await letRequestsIn();
  const base = await cliBase(configPath);
  const { config } = base.loaded;
  // Channels, plugin configs and secrets are checked before the store is opened: a refused start
  // creates no store (and no lock) that `herald doctor` would then call fine.
  const channels = await cliChannels(base);
  await letRequestsIn();
  const fromConfig = gatewayOptionsOf(config, base.secrets);
  await letRequestsIn();
  const ctx = { ...base, store: await cliStore(base, true) };
  try {
    await letRequestsIn();
    const gateway = createGateway({
      ...fromConfig,
      store: ctx.store,
      channels,
      handler,
      http: config.http && { ...config.http, listener },
      logger: ctx.logger,
      redact: (text) => ctx.secrets.redact(text),
    });
    if (hooks.onAction) gateway.onAction(hooks.onAction);
    if (hooks.onReaction) gateway.onReaction(hooks.onReaction);
    gateway.handleSignals();
    try {
      await gateway.start();
    } catch (error) {
      await gateway.stop().catch(() => {});
      throw (config.http ? httpListenError(error, config.http) : undefined) ?? error;
    }
    const accounts = gateway.accounts();
    const stopped = accounts.filter((h) => h.stopped);
    if (accounts.length > 0 && stopped.length === accounts.length) {
      await gateway.stop().catch(() => {});
      throw new AllAccountsStoppedError(stopped);
    }
    for (const h of stopped) err.write(`herald: account ${describeStopped(h).slice(4)}\n`);
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
