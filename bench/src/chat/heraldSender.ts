/**
 * herald's plugin for the run's channel as the sender (`heraldAdapters.ts`: the plugin's
 * defaults): every message of the schedule enqueued with its payload id as idempotency key (a
 * restart enqueues them all again; the keys make that a no-op for what is already queued or
 * sent), delivered by the runtime under the plugin's declared limits. What happens to a send
 * whose answer was lost (`maybe_sent`) is the plugin's: Telegram holds it for an operator
 * (`unknownSendPolicy: "hold"`; the later messages of that chat wait behind it, per-chat order),
 * Slack reconciles it through history (then holds what stays unresolved), Discord and Google
 * Chat resend it under the same platform key (nonce; requestId / messageId).
 * Exits when every intent is sent, failed or held, or only waits behind a held one.
 *
 * @module
 */
import { join } from "node:path";
import { createMessageRuntime, SqliteStateStore } from "@herald/core";
import { isHeldForOperator } from "@herald/plugin-sdk/testing";
import { answer } from "../proc.ts";
import { heraldChannel } from "./heraldAdapters.ts";
import { type SenderConfig, scheduled } from "./schedule.ts";

const c = JSON.parse(process.argv[2] ?? "{}") as SenderConfig;
const store = new SqliteStateStore({ path: join(c.stateDir, "herald.db"), synchronous: "FULL" });
const platform = heraldChannel(c);
const runtime = createMessageRuntime({
  store,
  adapters: [platform.adapter],
  delivery: { workerId: `${c.channel}-bench`, concurrency: 16 },
});
await runtime.start();
for (let i = 0; i < c.count; i++) {
  const m = scheduled(c, i);
  await runtime.enqueue(
    {
      id: m.id,
      channel: platform.channel,
      direction: "outbound",
      target: platform.target(m.target),
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
