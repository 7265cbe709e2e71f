/**
 * Child process of the polling crash test (CASES C07): the real adapter and polling receiver on
 * a SQLite file against the parent's fake Bot API. Phase `first` makes updates of `slowChat`
 * take a minute (the armed failpoint kills the process before they finish); phase `restart`
 * runs until the watermark reaches `until`, then exits 0. Every processed update id is appended
 * to `logPath`.
 *
 * Usage: `node --conditions=herald-source pollingChild.ts '<json>'`
 *
 * @module
 */
import { appendFileSync } from "node:fs";
import {
  createMessageRuntime,
  createReceiverSink,
  SqliteStateStore,
  scaledMs,
} from "@herald/plugin-sdk/testing";
import { createTelegramAdapter, createTelegramReceiver } from "../index.ts";
import { testConfig } from "./harness.ts";

/** What the parent hands the child (JSON in argv[2]). */
export type PollingChildConfig = {
  apiRoot: string;
  token: string;
  storePath: string;
  logPath: string;
  slowChat: string;
  phase: "first" | "restart";
  until: number;
};

const c = JSON.parse(process.argv[2] ?? "{}") as PollingChildConfig;
const config = testConfig({
  apiRoot: c.apiRoot,
  token: c.token,
  maxTextLength: 4096,
  unknownSendPolicy: "hold",
  reconcile: "off",
});
const store = new SqliteStateStore({ path: c.storePath });
const runtime = createMessageRuntime({
  store,
  adapters: [createTelegramAdapter(config, c.token)],
  delivery: { workerId: "poller" },
  receive: {
    instanceId: "poller-1", // stable across restarts: takes back its own leases at once
    loopGuard: false,
    handler: async (ctx) => {
      const updateId = (ctx.input.raw as { update_id: number }).update_id;
      if (c.phase === "first" && ctx.input.target.id === c.slowChat) {
        await new Promise((resolve) => setTimeout(resolve, 60_000));
      }
      appendFileSync(c.logPath, `${updateId}\n`);
    },
  },
});
await runtime.start();
const receiver = createTelegramReceiver(
  config,
  c.token,
  createReceiverSink(runtime, { channel: "telegram", accountId: "main" }),
);
await receiver.start?.();

const deadline = Date.now() + scaledMs(20_000);
for (;;) {
  const watermark = Number(
    (await store.getWatermark({ channel: "telegram", accountId: "main", source: "updates" })) ?? 0,
  );
  if (c.phase === "restart" && watermark >= c.until) break;
  if (Date.now() > deadline) {
    console.error(`child ${c.phase}: watermark ${watermark} never reached ${c.until}`);
    process.exit(2);
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await receiver.stop?.();
await runtime.stop(1_000);
await store.close();
process.exit(0);
