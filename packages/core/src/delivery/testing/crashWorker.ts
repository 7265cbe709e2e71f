/**
 * Child process of the delivery crash tests: a real runtime on a SQLite file, delivering to a
 * fake platform served by the parent over HTTP. Killed by an armed failpoint (SIGKILL), then
 * started again to drain.
 *
 * Usage: node crashWorker.ts '<json config>'
 * - phase "produce": sends `count` messages concurrently through `runtime.send`;
 * - phase "drain": recovers and delivers until nothing is left unsent but what waits for an
 *   operator (held, or behind a held message in its chat), then exits 0.
 *
 * @module
 */
import { isHeldForOperator, TERMINAL_STATUSES } from "../../message/intent.ts";
import { createMessageRuntime } from "../../runtime.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { openSqliteStateStore } from "../../state/sqlite/worker/SqliteWorkerStore.ts";
import { createFakeAdapter } from "../../testing/fakeAdapter.ts";
import { httpTransport } from "../../testing/fakePlatformServer.ts";
import { outboundMessage } from "../../testing/fixtures.ts";
import { scaledMs } from "../../testing/timeScale.ts";

type Config = {
  storePath: string;
  platformUrl: string;
  mode: "idempotent" | "reconcile" | "at_least_once" | "hold";
  phase: "produce" | "drain";
  count: number;
  chats: number;
  workerId: string;
  /** `capabilities.delivery.requestTimeoutMs` the adapter declares (the settle delay). */
  requestTimeoutMs?: number;
  /** Where the store runs: this thread (default) or its worker thread (`openSqliteStateStore`). */
  thread?: "main" | "worker";
  /** `false`: group commit off (one transaction per write: no folded first attempt). */
  groupCommit?: false;
};

const config = JSON.parse(process.argv[2] ?? "{}") as Config;
const storeOptions = {
  path: config.storePath,
  ...(config.groupCommit === false ? { groupCommit: false as const } : {}),
};
const store =
  config.thread === "worker"
    ? await openSqliteStateStore(storeOptions)
    : new SqliteStateStore(storeOptions);
const runtime = createMessageRuntime({
  store,
  adapters: [
    createFakeAdapter({
      transport: httpTransport(config.platformUrl),
      idempotent: config.mode === "idempotent",
      reconcile: config.mode === "reconcile",
      unknownSendPolicy: config.mode === "at_least_once" ? "at_least_once" : "hold",
      requestTimeoutMs: config.requestTimeoutMs ?? 100,
    }),
  ],
  delivery: {
    workerId: config.workerId,
    leaseMs: 1_000,
    pollIntervalMs: 5,
    backoff: { baseMs: 10, maxMs: 40, maxAttempts: 20 },
  },
});
await runtime.start();

if (config.phase === "produce") {
  await Promise.allSettled(
    Array.from({ length: config.count }, (_, i) =>
      runtime
        .send(outboundMessage(`m${i}`, { target: { id: `chat-${i % config.chats}` } }), {
          idempotencyKey: `m-${i}`,
          waitMs: 10_000,
        })
        // The parent checks that no caller got a receipt for what a crash left unrecorded.
        .then(() => process.stdout.write(`receipt m-${i}\n`)),
    ),
  );
} else {
  const deadline = Date.now() + scaledMs(20_000);
  for (;;) {
    const intents = await store.listIntents({ limit: 1_000 });
    const held = intents.filter(isHeldForOperator);
    const open = intents.filter(
      (i) =>
        !TERMINAL_STATUSES.includes(i.status) &&
        !isHeldForOperator(i) &&
        !held.some((h) => h.orderingKey === i.orderingKey && h.seq < i.seq),
    );
    if (open.length === 0) break;
    if (Date.now() > deadline) {
      console.error("drain timed out", JSON.stringify(open.map((i) => [i.id, i.status])));
      process.exit(2);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
await runtime.stop();
await store.close();
