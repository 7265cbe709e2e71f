/**
 * `herald demo`: the main job on the embedded default — the QA channel's web chat on
 * 127.0.0.1 and a demo bot answering with a streamed reply and simulated tool activity, state in
 * SQLite in the demo's own folder (`.herald/demo/` by default). The demo never deletes a store:
 * the QA platform numbers its messages from the clock (`persistentIds`), so the state of an
 * earlier run stays valid. Prints the URL; Ctrl-C stops.
 *
 * `@herald/plugin-qa-channel` is an optional peer of the gateway, loaded only here: without it
 * the demo says how to install it.
 *
 * @module
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { HeraldError } from "@herald/core";
import type { QaPlatform } from "@herald/plugin-qa-channel/testing";
import { parseConfig } from "../../config/load.ts";
import demoBot, { onAction as demoOnAction } from "../../demo/demoBot.ts";
import { createGateway, type Gateway } from "../../gateway.ts";
import { createLogger } from "../../logger.ts";
import { importFromApp, PackageNotInstalledError } from "../../plugins/importFromApp.ts";
import { loadPlugins } from "../../plugins/loadPlugins.ts";
import { SecretReader } from "../../plugins/secrets.ts";
import { openStore } from "../../store/openStore.ts";

/** The demo's chat room. */
export const DEMO_CHAT = "lobby";

/** The demo's own state folder (never the default store of `herald()` / `herald start`). */
export const DEMO_DIR = join(".herald", "demo");

/** The QA channel is not installed: `herald demo` needs it. */
export class DemoNeedsQaChannelError extends HeraldError {
  constructor(cause: unknown) {
    super(
      "HERALD_DEMO_NEEDS_QA_CHANNEL",
      "herald demo runs on the QA channel, which is not installed.\n" +
        "    fix: npm install @herald/plugin-qa-channel   (or: pnpm add @herald/plugin-qa-channel)",
      { cause },
    );
  }
}

type QaModules = {
  plugin: typeof import("@herald/plugin-qa-channel").default;
  testing: typeof import("@herald/plugin-qa-channel/testing");
};

/**
 * Loads the QA channel (plugin and platform).
 *
 * @throws {@link DemoNeedsQaChannelError} when `@herald/plugin-qa-channel` is not installed.
 */
export async function loadQaChannel(dir = process.cwd()): Promise<QaModules> {
  try {
    const [main, testing] = await Promise.all([
      importFromApp<typeof import("@herald/plugin-qa-channel")>("@herald/plugin-qa-channel", [dir]),
      importFromApp<QaModules["testing"]>("@herald/plugin-qa-channel/testing", [dir]),
    ]);
    return { plugin: main.default, testing };
  } catch (error) {
    if (error instanceof PackageNotInstalledError) throw new DemoNeedsQaChannelError(error);
    throw error;
  }
}

/** A running demo: the QA platform (web chat) and the gateway. */
export type Demo = {
  platform: QaPlatform;
  gateway: Gateway;
  chatUrl: string;
  /** The config file describing the demo's store and channel (for `herald queue ls -c`). */
  configFile: string;
  /** The QA platform's default bot token (public: the platform is a local fake). */
  qaToken: string;
  stop(): Promise<void>;
};

/**
 * Starts the demo and returns it (the CLI keeps it running until a signal).
 *
 * @throws {@link DemoNeedsQaChannelError} · StoreLockedError when another gateway uses `dir`'s store.
 */
export async function startDemo(options: {
  port: number;
  dir: string;
  logLevel?: string;
}): Promise<Demo> {
  const qa = await loadQaChannel();
  const { DEFAULT_QA_BOT, QaPlatform } = qa.testing;
  mkdirSync(options.dir, { recursive: true });
  const config = parseConfig({
    store: { sqlite: { path: resolve(options.dir, "state.db") } },
    channels: [{ plugin: "@herald/plugin-qa-channel", account: DEFAULT_QA_BOT.id, config: {} }],
    http: { host: "127.0.0.1", port: 0 },
    log: { level: options.logLevel ?? "warn" },
  });
  // Lock the store before the platform starts: a second demo on this folder stops here.
  const store = await openStore(config, process.cwd(), process.env, { lock: true });
  let platform: QaPlatform;
  try {
    // Message ids from the clock: the store of an earlier run stays valid, nothing is wiped.
    platform = await QaPlatform.start({ port: options.port, persistentIds: true });
  } catch (error) {
    await store.close();
    if ((error as { code?: string }).code === "EADDRINUSE") {
      throw new Error(
        `port ${options.port} on 127.0.0.1 is busy (another herald demo running?): stop it, or pass --port <port> (0 = any free port)`,
      );
    }
    throw error;
  }
  // A group chat: the activity log threads under the user's message (DMs have no log).
  platform.createChat({ id: DEMO_CHAT, type: "group" });
  const channel = {
    plugin: "@herald/plugin-qa-channel",
    account: DEFAULT_QA_BOT.id,
    config: { baseUrl: platform.url },
  };
  const secrets = new SecretReader({
    ...process.env,
    HERALD_QA_TOKEN: process.env.HERALD_QA_TOKEN ?? DEFAULT_QA_BOT.token,
  });
  const logger = createLogger({ level: config.log.level, secrets, out: process.stderr });
  let gateway: Gateway;
  try {
    const channels = await loadPlugins(
      { ...config, channels: [{ ...channel }] },
      { logger, secrets, preloaded: { "@herald/plugin-qa-channel": qa.plugin as never } },
    );
    gateway = createGateway({
      store,
      channels,
      handler: demoBot,
      http: config.http,
      logger,
      delivery: { workerId: "demo" },
      redact: (text) => secrets.redact(text),
    });
    gateway.onAction(demoOnAction);
    await gateway.start();
  } catch (error) {
    await store.close();
    await platform.close();
    throw error;
  }
  const chatUrl = `${platform.url}/?chat=${DEMO_CHAT}&user=you`;
  // A config describing this demo, so `herald queue ls -c .herald/demo/herald.config.json` works.
  const configFile = resolve(options.dir, "herald.config.json");
  writeFileSync(
    configFile,
    `${JSON.stringify({ store: { sqlite: { path: "state.db" } }, channels: [channel] }, null, 2)}\n`,
  );
  return {
    platform,
    gateway,
    chatUrl,
    configFile,
    qaToken: DEFAULT_QA_BOT.token,
    async stop() {
      await gateway.stop();
      await store.close();
      await platform.close();
    },
  };
}

/**
 * How to run `herald <args>` as the user can type it here: `npx herald` from an installed
 * package, `./scripts/bootstrap.sh pnpm herald` inside the herald repository (source checkout).
 */
export function heraldCommand(cwd = process.cwd()): string {
  const main = fileURLToPath(import.meta.url);
  const repo = main.split(`${sep}packages${sep}gateway${sep}src${sep}`)[0];
  if (repo !== main && existsSync(join(repo ?? "", "scripts", "bootstrap.sh"))) {
    const script = relative(cwd, join(repo ?? "", "scripts", "bootstrap.sh")) || ".";
    return `${script.startsWith(".") ? script : `./${script}`} pnpm herald`;
  }
  return "npx herald";
}

/** `herald demo`. */
export async function demoCommand(options: { port: number; dir: string }): Promise<void> {
  const demo = await startDemo(options);
  const config = relative(process.cwd(), demo.configFile);
  const herald = heraldCommand();
  process.stdout.write(
    [
      "",
      "  herald demo is running",
      `  web chat:  ${demo.chatUrl}   ← open it and say hello`,
      `  gateway:   ${demo.gateway.url}/metrics · /healthz`,
      `  state:     ${relative(process.cwd(), resolve(options.dir)) || "."}/ (the demo's own folder; kept between runs)`,
      `  queue:     ${herald} queue ls -c ${config}`,
      `  recover:   HERALD_QA_TOKEN=${demo.qaToken} ${herald} recover -c ${config}   (the QA platform's default bot token)`,
      "  Ctrl-C stops.",
      "",
    ].join("\n"),
  );
  const stop = () => {
    void demo.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
