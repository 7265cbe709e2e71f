/**
 * herald's Telegram plugin as the sender: every message of the schedule enqueued with its
 * payload id as idempotency key (a restart enqueues them all again; the keys make that a no-op
 * for what is already queued or sent), delivered by the runtime under the plugin's declared
 * Telegram limits (30/s per bot, 1/s per chat, 20/min per group). Sends whose answer was lost
 * (`maybe_sent`) are not sent again (`unknownSendPolicy: "hold"`, the plugin's default): they
 * wait for an operator, and the later messages of that chat wait behind them (per-chat order).
 * Exits when every intent is sent, failed or held, or only waits behind a held one.
 *
 * @module
 */
import { join } from "node:path";
import { createMessageRuntime, SqliteStateStore } from "@herald/core";
import { isHeldForOperator } from "@herald/plugin-sdk/testing";
import { createTelegramAdapter, telegramConfigSchema } from "@herald/plugin-telegram";
import { answer } from "../proc.ts";
import { type SenderConfig, scheduled } from "./schedule.ts";

const c = JSON.parse(process.argv[2] ?? "{}") as SenderConfig;
const store = new SqliteStateStore({ path: join(c.stateDir, "herald.db"), synchronous: "FULL" });
// The plugin's defaults (declared Telegram limits, `unknownSendPolicy: "hold"`, `reconcile:
// "off"`) unless the run names other options.
const config = telegramConfigSchema.parse({
  apiRoot: c.apiRoot,
  requestTimeoutMs: 5_000,
  ...c.herald,
});
const runtime = createMessageRuntime({
  store,
  adapters: [createTelegramAdapter(config, c.token)],
  delivery: { workerId: "telegram-bench", concurrency: 16 },
});
await runtime.start();
for (let i = 0; i < c.count; i++) {
  const m = scheduled(c, i);
  await runtime.enqueue(
    {
      id: m.id,
      channel: "telegram",
      direction: "outbound",
      target: { kind: "direct", id: String(m.chatId) },
      body: { markdown: m.text },
    },
    { idempotencyKey: m.id },
  );
}
// Done when every intent is sent, failed or held — or when what is left only waits behind a
// held send of its chat (a chat's messages go out in order) and nothing moved for 5 s.
let last = "";
let lastChange = Date.now();
for (;;) {
  const counts = await store.countIntents();
  const doubt = await store.listIntents({ statuses: ["unknown_after_send"], limit: c.count });
  const held = doubt.filter((i) => isHeldForOperator(i));
  const pending = await store.listIntents({ statuses: ["pending"], limit: c.count });
  const heldChats = new Set(held.map((i) => i.message.target.id));
  const blocked = pending.filter((i) => heldChats.has(i.message.target.id)).length;
  const state = JSON.stringify(counts);
  if (state !== last) {
    last = state;
    lastChange = Date.now();
  }
  const inFlight = counts.sending + counts.committing + doubt.length - held.length;
  const settled = inFlight === 0 && pending.length === 0;
  const stuck = inFlight === 0 && blocked === pending.length && Date.now() - lastChange > 5_000;
  if (settled || stuck) {
    answer({
      sent: counts.sent,
      held: held.length,
      blockedBehindHeld: blocked,
      failed: counts.failed,
    });
    break;
  }
  await new Promise((r) => setTimeout(r, 50));
}
await runtime.stop(1_000);
await store.close();
process.exit(0);
