/**
 * Child process of the `maxAgeMs` crash test (`expiryCrash.test.ts`, C55): a real runtime on a
 * SQLite file, delivering to a fake platform served by the parent over HTTP.
 *
 * Usage: node expiryCrashWorker.ts '<json config>'
 * - phase "produce": sends one message with `maxAgeMs` (killed by an armed failpoint);
 * - phase "drain": runs with its clock `clockOffsetMs` ahead (a restart that long after the
 *   kill) until no intent is left unsettled, then prints each intent's status and exits 0.
 *
 * @module
 */
import { TERMINAL_STATUSES } from "../../message/intent.ts";
import { createMessageRuntime } from "../../runtime.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter } from "../../testing/fakeAdapter.ts";
import { httpTransport } from "../../testing/fakePlatformServer.ts";
import { outboundMessage } from "../../testing/fixtures.ts";
import { scaledMs } from "../../testing/timeScale.ts";

type Config = {
  storePath: string;
  platformUrl: string;
  phase: "produce" | "drain";
  maxAgeMs: number;
  clockOffsetMs?: number;
};

const config = JSON.parse(process.argv[2] ?? "{}") as Config;
const offset = config.clockOffsetMs ?? 0;
const clock = () => Date.now() + offset;
const store = new SqliteStateStore({ path: config.storePath, clock });
const runtime = createMessageRuntime({
  store,
  clock,
  adapters: [
    createFakeAdapter({
      transport: httpTransport(config.platformUrl),
      idempotent: true,
      requestTimeoutMs: 100,
    }),
  ],
  delivery: {
    workerId: "w1",
    leaseMs: 1_000,
    pollIntervalMs: 5,
    backoff: { baseMs: 10, maxMs: 40, maxAttempts: 20 },
  },
});
await runtime.start();

if (config.phase === "produce") {
  await runtime
    .send(outboundMessage("late reply", { target: { id: "chat-1" } }), {
      idempotencyKey: "reply-1",
      maxAgeMs: config.maxAgeMs,
      waitMs: 10_000,
    })
    .catch(() => {});
} else {
  const deadline = Date.now() + scaledMs(20_000);
  for (;;) {
    const intents = await store.listIntents({ limit: 100 });
    if (intents.every((i) => TERMINAL_STATUSES.includes(i.status))) {
      process.stdout.write(`${JSON.stringify(intents.map((i) => i.status))}\n`);
      break;
    }
    if (Date.now() > deadline) {
      console.error("drain timed out", JSON.stringify(intents.map((i) => [i.id, i.status])));
      process.exit(2);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
await runtime.stop();
await store.close();
