/**
 * One webhook receiver in its own process, for the receive-side bench (`run.ts`). Kinds:
 *
 * - `bare`: a `node:http` server that reads the whole body and answers 200 — the floor: what
 *   any receiver must at least do.
 * - `herald` / `herald-inthread`: herald's Telegram webhook receiver as the gateway serves it —
 *   the gateway's HTTP app (`createHttpApp`: hono, the route's body limit) on `node:http`, the
 *   receiver checking `X-Telegram-Bot-Api-Secret-Token`, then `runtime.receive`: the update's
 *   dedupe record (channel, account, `update_id`) committed durably (SQLite
 *   `synchronous = FULL`) before the 200; a no-op handler runs after the ack. `herald` opens
 *   the store in a worker thread (`openSqliteStateStore`, what the gateway uses),
 *   `herald-inthread` on the main thread.
 * - `bolt`: Slack's Bolt for JavaScript (`@slack/bolt`) with its `HTTPReceiver` on
 *   `node:http`: signature check (`x-slack-signature`, HMAC-SHA256 of the body), then the
 *   event handed to a no-op `app.event("message")` listener; Bolt acks events itself before the
 *   listener runs (`processBeforeResponse: false`, its default). Bolt records nothing and has no
 *   dedupe of retried events.
 *
 * Prints `{"url": …}` once listening; runs until killed.
 *
 * Usage: `node server.ts '{"kind": "herald", "dir": "/tmp/…"}'`
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  createMessageRuntime,
  createReceiverSinkFor,
  type HeraldLogger,
  type MessageStateStore,
  openSqliteStateStore,
  SqliteStateStore,
} from "@herald/core";
import { createHttpApp, GatewayMetrics } from "@herald/gateway";
import {
  createTelegramAdapter,
  createTelegramReceiver,
  telegramConfigSchema,
} from "@herald/plugin-telegram";
import { getRequestListener } from "@hono/node-server";
import { answer } from "../proc.ts";
import {
  BOT_TOKEN,
  CPU_PATH,
  type IngestKind,
  SLACK_SIGNING_SECRET,
  TELEGRAM_SECRET,
} from "./secrets.ts";

const args = JSON.parse(process.argv[2] ?? "{}") as { kind: IngestKind; dir: string };

/** Drops everything but errors (which go to stderr: a bench run must show them). */
const silent: HeraldLogger = {
  debug() {},
  info() {},
  warn() {},
  error: (obj, msg) => console.error(msg ?? "", obj),
  child: () => silent,
};

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Answers {@link CPU_PATH} itself, hands everything else to `next`. */
const withCpu =
  (next: (req: IncomingMessage, res: ServerResponse) => unknown) =>
  (req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== CPU_PATH) return next(req, res);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ cpuMs: cpuMs() }));
  };

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

async function bare(): Promise<string> {
  const server = createServer(
    withCpu((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        Buffer.concat(chunks);
        res.writeHead(200);
        res.end();
      });
    }),
  );
  return `${await listen(server)}/webhooks/telegram/main`;
}

async function herald(thread: "worker" | "main"): Promise<string> {
  const path = join(args.dir, `ingest-${process.pid}.db`);
  const store: MessageStateStore =
    thread === "worker"
      ? await openSqliteStateStore({ path, synchronous: "FULL" })
      : new SqliteStateStore({ path, synchronous: "FULL" });
  const config = telegramConfigSchema.parse({
    // Never called: the receive path reads nothing from the Bot API (the username is given).
    apiRoot: "http://127.0.0.1:9",
    botUsername: "bench_bot",
    receive: { mode: "webhook", secretTokenEnv: "TELEGRAM_WEBHOOK_SECRET" },
  });
  const adapter = createTelegramAdapter(config, BOT_TOKEN);
  const runtime = createMessageRuntime({
    store,
    adapters: [adapter],
    logger: silent,
    receive: { handler: async () => {} },
  });
  await runtime.start();
  if (store instanceof SqliteStateStore && process.env.BENCH_INGEST_STATS)
    process.on("exit", () => console.error("group commit", JSON.stringify(store.groupCommitStats)));
  const sink = createReceiverSinkFor({
    receive: (raw, source) => runtime.receive(raw, source),
    store,
    channel: adapter.id,
    accountId: "main",
    logger: silent,
  });
  const receiver = createTelegramReceiver(config, BOT_TOKEN, sink, TELEGRAM_SECRET);
  await receiver.start?.();
  const app = createHttpApp({
    store,
    metrics: new GatewayMetrics(store, silent),
    receivers: new Map([["telegram/main", receiver]]),
    logger: silent,
  });
  const server = createServer(withCpu(getRequestListener(app.fetch, { hostname: "127.0.0.1" })));
  return `${await listen(server)}/webhooks/telegram/main`;
}

async function slackBolt(): Promise<string> {
  // Loaded only here: the other receivers' processes do not pay for Bolt's modules.
  const { default: bolt } = await import("@slack/bolt");
  const receiver = new bolt.HTTPReceiver({
    signingSecret: SLACK_SIGNING_SECRET,
    customRoutes: [
      {
        path: CPU_PATH,
        method: ["GET"],
        handler: (req, res) => withCpu(() => {})(req, res),
      },
    ],
  });
  const app = new bolt.App({
    token: "xoxb-bench",
    // Given, so Bolt's single-workspace authorization never calls auth.test.
    botId: "B0BENCH",
    botUserId: "U0BOT",
    receiver,
    tokenVerificationEnabled: false,
    logLevel: bolt.LogLevel.ERROR,
  });
  app.event("message", async () => {});
  const server = (await app.start(0)) as Server;
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
}

const url =
  args.kind === "bare"
    ? await bare()
    : args.kind === "bolt"
      ? await slackBolt()
      : await herald(args.kind === "herald" ? "worker" : "main");
// A normal exit on SIGTERM, so `node --cpu-prof server.ts …` writes its profile.
process.on("SIGTERM", () => process.exit(0));
answer({ url });
