/**
 * A gateway delivery worker process for the scale benchmark: one runtime on a SQLite file or a
 * PostgreSQL schema, delivering to a fake platform served over HTTP by the bench. Stops on SIGTERM.
 *
 * Usage: node --conditions=herald-source worker.ts '<json config>'
 */
import { createMessageRuntime, type MessageStateStore, SqliteStateStore } from "@herald/core";
import { createFakeAdapter, httpTransport } from "@herald/core/testing";
import { PostgresStateStore } from "@herald/store-postgres";

type Config = {
  store: "sqlite" | "postgres";
  location: string;
  schema?: string;
  platformUrl: string;
  workerId: string;
  concurrency: number;
  /** Declared rate limits of the fake adapter (the drain bench). */
  rateLimits?: Parameters<typeof createFakeAdapter>[0]["rateLimits"];
};
const config = JSON.parse(process.argv[2] ?? "{}") as Config;
const store: MessageStateStore =
  config.store === "sqlite"
    ? new SqliteStateStore({ path: config.location, busyTimeoutMs: 30_000 })
    : await PostgresStateStore.connect({
        connectionString: config.location,
        schema: config.schema ?? "herald",
        pool: { max: config.concurrency + 4 },
      });
const runtime = createMessageRuntime({
  store,
  adapters: [
    createFakeAdapter({
      transport: httpTransport(config.platformUrl),
      idempotent: true,
      ...(config.rateLimits ? { rateLimits: config.rateLimits } : {}),
    }),
  ],
  delivery: { workerId: config.workerId, concurrency: config.concurrency, pollIntervalMs: 5 },
});
await runtime.start();
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  void runtime
    .stop(5_000)
    .then(() => store.close())
    .then(() => process.exit(0));
});
