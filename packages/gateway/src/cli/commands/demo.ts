/**
 * `herald demo`: the main job on the embedded default — the QA channel's web chat on
 * 127.0.0.1 and a demo bot answering with a streamed reply and simulated tool activity, state in
 * SQLite under `.herald/`. Prints the URL; Ctrl-C stops.
 *
 * @module
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import qaPlugin from "@herald/plugin-qa-channel";
import { DEFAULT_QA_BOT, QaPlatform } from "@herald/plugin-qa-channel/testing";
import { parseConfig } from "../../config/load.ts";
import demoBot from "../../demo/demoBot.ts";
import { createGateway, type Gateway } from "../../gateway.ts";
import { createLogger } from "../../logger.ts";
import { loadPlugins } from "../../plugins/loadPlugins.ts";
import { SecretReader } from "../../plugins/secrets.ts";
import { openStore } from "../../store/openStore.ts";

/** The demo's chat room. */
export const DEMO_CHAT = "lobby";

/** A running demo: the QA platform (web chat) and the gateway. */
export type Demo = {
  platform: QaPlatform;
  gateway: Gateway;
  chatUrl: string;
  /** The config file describing the demo's store and channel (for `herald queue ls -c`). */
  configFile: string;
  stop(): Promise<void>;
};

/** Starts the demo and returns it (the CLI keeps it running until a signal). */
export async function startDemo(options: {
  port: number;
  dir: string;
  logLevel?: string;
}): Promise<Demo> {
  mkdirSync(options.dir, { recursive: true });
  // The demo's chat platform lives in this process and starts empty (message ids from 1), so
  // state from an earlier run would only hold stale dedupe records: start from a fresh store.
  for (const suffix of ["", "-wal", "-shm"])
    rmSync(resolve(options.dir, `state.db${suffix}`), { force: true });
  const platform = await QaPlatform.start({ port: options.port }).catch((error: unknown) => {
    if ((error as { code?: string }).code === "EADDRINUSE") {
      throw new Error(
        `port ${options.port} on 127.0.0.1 is busy (another herald demo running?): stop it, or pass --port <port> (0 = any free port)`,
      );
    }
    throw error;
  });
  // A group chat: the activity log threads under the user's message (DMs have no log).
  platform.createChat({ id: DEMO_CHAT, type: "group" });
  const config = parseConfig({
    store: { sqlite: { path: resolve(options.dir, "state.db") } },
    channels: [
      {
        plugin: "@herald/plugin-qa-channel",
        account: DEFAULT_QA_BOT.id,
        config: { baseUrl: platform.url },
      },
    ],
    http: { host: "127.0.0.1", port: 0 },
    log: { level: options.logLevel ?? "warn" },
  });
  const secrets = new SecretReader({
    ...process.env,
    HERALD_QA_TOKEN: process.env.HERALD_QA_TOKEN ?? DEFAULT_QA_BOT.token,
  });
  const logger = createLogger({ level: config.log.level, secrets, out: process.stderr });
  const store = await openStore(config, process.cwd());
  const channels = await loadPlugins(config, {
    logger,
    secrets,
    preloaded: { "@herald/plugin-qa-channel": qaPlugin as never },
  });
  const gateway = createGateway({
    store,
    channels,
    handler: demoBot,
    http: config.http,
    logger,
    delivery: { workerId: "demo" },
  });
  await gateway.start();
  const chatUrl = `${platform.url}/?chat=${DEMO_CHAT}&user=you`;
  // A config describing this demo, so `herald queue ls -c .herald/herald.config.json` works.
  const configFile = resolve(options.dir, "herald.config.json");
  writeFileSync(
    configFile,
    `${JSON.stringify(
      {
        store: { sqlite: { path: "state.db" } },
        channels: [
          {
            plugin: "@herald/plugin-qa-channel",
            account: DEFAULT_QA_BOT.id,
            config: { baseUrl: platform.url },
          },
        ],
      },
      null,
      2,
    )}\n`,
  );
  return {
    platform,
    gateway,
    chatUrl,
    configFile,
    async stop() {
      await gateway.stop();
      await store.close();
      await platform.close();
    },
  };
}

/** `herald demo`. */
export async function demoCommand(options: { port: number; dir: string }): Promise<void> {
  const demo = await startDemo(options);
  process.stdout.write(
    [
      "",
      "  herald demo is running",
      `  web chat:  ${demo.chatUrl}   ← open it and say hello`,
      `  gateway:   ${demo.gateway.url}/metrics · /healthz`,
      `  queue:     pnpm herald queue ls -c ${relative(process.cwd(), demo.configFile)}`,
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
