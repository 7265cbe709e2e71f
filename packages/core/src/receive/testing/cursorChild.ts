/**
 * Child process of the cursor crash test (CASES C31a): a `/sync`-like source of batches with
 * opaque `next` tokens, through the receive runtime and a cursor tracker on a SQLite file.
 *
 * Usage: `node cursorChild.ts <db> <processed.log> <kill|ok> <after-record|after-durable-send>`.
 * With `kill`, the handler SIGKILLs its own process while handling the first event (after it
 * was recorded). Every processed event id is appended to the log once its handler finished.
 *
 * @module
 */
import { appendFileSync } from "node:fs";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { createCursorTracker } from "../cursor.ts";
import { createReceiveRuntime } from "../ReceiveRuntime.ts";
import { createFakeTelegramAdapter, type TeleUpdate, teleUpdate } from "./fakeTelegram.ts";

const [db, logFile, mode = "ok", policy = "after-durable-send"] = process.argv.slice(2);
if (!db || !logFile) throw new Error("usage: cursorChild <db> <log> <kill|ok> <policy>");

/** The platform: batch `s1` → events [1] next `s2`; `s2` → [2] next `s3`; `s3` → nothing. */
const timeline: Record<string, { events: TeleUpdate[]; next: string }> = {
  s1: { events: [teleUpdate(1, { text: "e1" })], next: "s2" },
  s2: { events: [teleUpdate(2, { text: "e2" })], next: "s3" },
  s3: { events: [], next: "s3" },
};

const store = new SqliteStateStore({ path: db });
const source = {
  channel: "telegram",
  accountId: "main",
  ackPolicy: { kind: policy } as { kind: "after-record" | "after-durable-send" },
};
const runtime = createReceiveRuntime(
  { store, adapters: new Map([["telegram", createFakeTelegramAdapter()]]) },
  {
    instanceId: "syncer-1",
    handler: async (ctx) => {
      const id = (ctx.input.raw as TeleUpdate).update_id;
      if (mode === "kill" && id === 1) process.kill(process.pid, "SIGKILL");
      appendFileSync(logFile, `${id}\n`);
    },
  },
);
await runtime.recover({ channels: ["telegram"] });
const cursor = createCursorTracker({ store, key: { ...source, source: "sync" } });
let since = (await cursor.load()) ?? "s1";
for (;;) {
  const res = timeline[since];
  if (!res || res.events.length === 0) break;
  const batch = cursor.batch(res.next);
  for (const event of res.events) void batch.item().track(runtime.receive(event, source).ack);
  await batch.seal();
  since = res.next;
}
await runtime.drain();
await cursor.flushed();
await store.close();
process.stdout.write("done\n");
