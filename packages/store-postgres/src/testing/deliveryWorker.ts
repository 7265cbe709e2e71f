/**
 * Child process of the multi-process delivery test: one gateway delivery worker on a shared
 * PostgreSQL store, sending to a fake platform served by the parent over HTTP. Runs until
 * SIGTERM (graceful stop) or SIGKILL (crash).
 *
 * Usage: node --conditions=herald-source deliveryWorker.ts '<json config>'
 *
 * @module
 */
import { createMessageRuntime } from "@herald/core";
import { createFakeAdapter, httpTransport } from "@herald/core/testing";
import { PostgresStateStore } from "../PostgresStateStore.ts";
import { parseLocation } from "./openStore.ts";

type Config = {
  location: string;
  platformUrl: string;
  workerId: string;
  concurrency?: number;
  leaseMs?: number;
  /** Declared rate limits (`capabilities.rateLimits`), shared through the store. */
  rateLimits?: Parameters<typeof createFakeAdapter>[0]["rateLimits"];
};
const config = JSON.parse(process.argv[2] ?? "{}") as Config;

const store = await PostgresStateStore.connect({
  ...parseLocation(config.location),
  pool: { max: (config.concurrency ?? 8) + 4 },
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
  delivery: {
    workerId: config.workerId,
    concurrency: config.concurrency ?? 8,
    leaseMs: config.leaseMs ?? 1_000,
    pollIntervalMs: 10,
    backoff: { baseMs: 20, maxMs: 200, maxAttempts: 50 },
  },
});
await runtime.start();
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  void runtime
    .stop(5_000)
    .then(() => store.close())
    .then(() => process.exit(0));
});
