/**
 * Child process of the polling crash test (CASES C07): one `getUpdates` round against a fake
 * update list, through the receive runtime and a watermark tracker on a SQLite file.
 *
 * Usage: `node pollingChild.ts <db> <updates.json> <processed.log> [slowIds]`. Updates listed
 * in `slowIds` (comma-separated) take a minute; every processed update id is appended to the log.
 *
 * @module
 */
import { appendFileSync, readFileSync } from "node:fs";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { createReceiveRuntime } from "../ReceiveRuntime.ts";
import { createWatermarkTracker } from "../watermark.ts";
import { createFakeTelegramAdapter, type TeleUpdate } from "./fakeTelegram.ts";

const [db, updatesFile, logFile, slowArg = ""] = process.argv.slice(2);
if (!db || !updatesFile || !logFile)
  throw new Error("usage: pollingChild <db> <updates> <log> [slow]");
const slow = new Set(slowArg.split(",").filter(Boolean).map(Number));

const store = new SqliteStateStore({ path: db });
const source = { channel: "telegram", accountId: "main" };
const runtime = createReceiveRuntime(
  { store, adapters: new Map([["telegram", createFakeTelegramAdapter()]]) },
  {
    instanceId: "poller-1", // stable across restarts: takes back its own leases at once
    handler: async (ctx) => {
      const id = (ctx.input.raw as TeleUpdate).update_id;
      if (slow.has(id)) await new Promise((resolve) => setTimeout(resolve, 60_000));
      appendFileSync(logFile, `${id}\n`);
    },
  },
);
const tracker = createWatermarkTracker({ store, key: source });

// getUpdates(offset = watermark + 1)
const watermark = await tracker.load();
const all = JSON.parse(readFileSync(updatesFile, "utf8")) as TeleUpdate[];
const updates = all.filter((u) => watermark === undefined || u.update_id > watermark);
for (const u of updates) tracker.begin(u.update_id);
await Promise.all(updates.map((u) => tracker.track(u.update_id, runtime.receive(u, source).ack)));
await runtime.drain();
await store.close();
process.stdout.write("done\n");
