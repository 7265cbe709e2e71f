/**
 * Child process of the receive crash tests: a webhook-style receiver (`immediate` ack) on a
 * SQLite file, or a recovery pass after a restart.
 *
 * Usage: `node webhookChild.ts <db> <processed.log> serve <updateId>` — receives one update,
 * writes `acked` to stdout (synchronously) when the platform may be answered; the handler marks
 * the failpoint `test.handler_mid` before appending the update id to the log.
 * `node webhookChild.ts <db> <processed.log> recover` — one `recover()` pass; prints its report.
 * `node webhookChild.ts <db> <processed.log> burst <n>:<k>` — receives updates 1…n in one tick
 * (their store writes share group commits), writes `acked <id>` to stdout (synchronously) for
 * each that may be answered, and SIGKILLs itself right after the k-th; handlers never finish.
 *
 * The store uses group commit (`groupCommit: {}`).
 *
 * @module
 */
import { appendFileSync, writeSync } from "node:fs";
import { failpoint } from "../../failpoint.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { createReceiveRuntime } from "../ReceiveRuntime.ts";
import { createFakeTelegramAdapter, type TeleUpdate, teleUpdate } from "./fakeTelegram.ts";

const [db, logFile, mode, arg] = process.argv.slice(2);
if (!db || !logFile || !mode) throw new Error("usage: webhookChild <db> <log> serve|recover [id]");

const store = new SqliteStateStore({ path: db, groupCommit: {} });
const burst = mode === "burst";
const adapter = createFakeTelegramAdapter({
  ackPolicy: { kind: "immediate", reason: "webhook-timeout" },
});
const runtime = createReceiveRuntime(
  { store, adapters: new Map([["telegram", adapter]]) },
  {
    instanceId: "gateway-1",
    handler: async (ctx) => {
      if (burst) await new Promise(() => {}); // still running when the process dies
      await new Promise((resolve) => setImmediate(resolve));
      failpoint("test.handler_mid");
      appendFileSync(logFile, `${(ctx.input.raw as TeleUpdate).update_id}\n`);
    },
  },
);

if (mode === "serve") {
  const ticket = runtime.receive(teleUpdate(Number(arg)), {
    channel: "telegram",
    accountId: "main",
  });
  void ticket.ack.then((signal) => {
    if (signal.kind === "accept") writeSync(1, "acked\n");
  });
  await ticket.done;
} else if (burst) {
  const [n = 0, k = 0] = (arg ?? "").split(":").map(Number);
  let acked = 0;
  for (let id = 1; id <= n; id++) {
    const ticket = runtime.receive(teleUpdate(id), { channel: "telegram", accountId: "main" });
    void ticket.ack.then((signal) => {
      if (signal.kind !== "accept") return;
      writeSync(1, `acked ${id}\n`);
      if (++acked === k) process.kill(process.pid, "SIGKILL");
    });
  }
  setInterval(() => {}, 60_000); // alive until the kill
  await new Promise(() => {});
} else {
  const report = await runtime.recover();
  writeSync(1, `${JSON.stringify(report)}\n`);
}
await runtime.drain();
await store.close();
