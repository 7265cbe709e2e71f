/**
 * A gateway delivery worker process for the scale benchmark: one runtime on a SQLite file or a
 * PostgreSQL schema, delivering to a fake platform served over HTTP by the bench. Stops on SIGTERM.
 *
 * Usage: node --conditions=herald-source worker.ts '<json config>'
 */
import { createMessageRuntime, type MessageStateStore, SqliteStateStore } from "@herald/core";
import { createFakeAdapter, httpTransport } from "@herald/core/testing";
import { PostgresStateStore } from "@herald/store-postgres";
import pg from "pg";

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
// Every statement this process sends to PostgreSQL (BEGIN and COMMIT included) is one round
// trip; counted so the bench can print statements per delivered message. With
// HERALD_BENCH_STATEMENTS=1 each kind of statement is listed on stop (count, total ms in flight).
let statements = 0;
const kinds = new Map<string, { count: number; ms: number }>();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements += 1;
  const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
  const kind = String(text)
    .replace(/\s+/g, " ")
    .replace(/"[^"]*"\./g, "")
    .slice(0, 72);
  const k = kinds.get(kind) ?? { count: 0, ms: 0 };
  kinds.set(kind, k);
  k.count += 1;
  const t0 = performance.now();
  const done = () => {
    k.ms += performance.now() - t0;
  };
  const last = args.at(-1);
  if (typeof last === "function") {
    args[args.length - 1] = (...a: unknown[]) => {
      done();
      return (last as (...x: unknown[]) => unknown)(...a);
    };
  }
  const r = (query as (...a: unknown[]) => unknown).apply(this, args);
  if (r instanceof Promise) r.then(done, done);
  return r;
} as typeof query;
const store: MessageStateStore =
  config.store === "sqlite"
    ? new SqliteStateStore({ path: config.location, busyTimeoutMs: 30_000 })
    : await PostgresStateStore.connect({
        connectionString: config.location,
        schema: config.schema ?? "herald",
        pool: { max: config.concurrency + 4 },
        // The drain bench finds this process's server backends by it (PostgreSQL CPU per message).
        applicationName: `herald-bench-${config.workerId}`,
      });
statements = 0; // not the migrations
kinds.clear();
const cpu0 = process.cpuUsage();
const runtime = createMessageRuntime({
  store,
  adapters: [
    createFakeAdapter({
      transport: httpTransport(config.platformUrl, { keepAlive: true }),
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
    .then(() => {
      if (process.env.HERALD_BENCH_STATEMENTS) {
        for (const [kind, k] of kinds) {
          process.stderr.write(
            `${config.workerId} ${String(k.count).padStart(6)} × ${(k.ms / k.count).toFixed(1).padStart(6)} ms  ${kind}\n`,
          );
        }
      }
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      process.stdout.write(`${JSON.stringify({ statements, cpuMs })}\n`);
      process.exit(0);
    });
});
