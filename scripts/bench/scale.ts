/**
 * `pnpm bench` (scale part): delivery throughput of 1 vs 4 gateway worker processes sharing one
 * state store — PostgreSQL (`@herald/store-postgres`) next to SQLite (one file) — in one run.
 * Each worker is a real process talking HTTP to one fake platform; the clock runs from the
 * first platform call to the last, so process start-up is not counted.
 *
 * The platform answers after `--latency` ms (default 25, a fast real platform), so one worker is
 * bound by its in-flight limit (concurrency 4) and more workers can deliver more at once; with
 * `--latency 0` the run is CPU-bound and measures how many cores the machine has instead.
 *
 * Options: --intents <n> (default 4000), --latency <ms>. Needs PostgreSQL at HERALD_TEST_POSTGRES_URL
 * (default postgres://postgres@127.0.0.1:5432/test); skipped with a note when unreachable.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type MessageStateStore, SqliteStateStore } from "@herald/core";
import { FakePlatform, newIntent, outboundMessage, serveFakePlatform } from "@herald/core/testing";
import { PostgresStateStore } from "@herald/store-postgres";
import pg from "pg";
import { benchPendingBacklog } from "./backlog.ts";

const { values } = parseArgs({
  options: {
    intents: { type: "string", default: "4000" },
    latency: { type: "string", default: "25" },
    "backlog-sends": { type: "string", default: "1000" },
  },
});
const LATENCY_MS = Number(values.latency);
const N = Number(values.intents);
const PG_URL = process.env.HERALD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const workerScript = fileURLToPath(new URL("./worker.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "herald-bench-scale-"));

function start(config: object): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=herald-source", workerScript, JSON.stringify(config)],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    child.stdout?.once("data", () => resolve(child));
    child.once("error", reject);
  });
}

async function run(kind: "sqlite" | "postgres", workers: number) {
  const schema = `herald_bench_${randomBytes(4).toString("hex")}`;
  const location = kind === "sqlite" ? join(dir, `${schema}.db`) : PG_URL;
  const store: MessageStateStore =
    kind === "sqlite"
      ? new SqliteStateStore({ path: location })
      : await PostgresStateStore.connect({ connectionString: PG_URL, schema });
  for (let i = 0; i < N; i += 1_000) {
    await store.enqueueIntents(
      Array.from({ length: Math.min(1_000, N - i) }, (_, k) =>
        newIntent(outboundMessage(`${i + k}`, { target: { id: `t${(i + k) % 50}` } })),
      ),
    );
  }
  const platform = new FakePlatform({ idempotent: true });
  const server = await serveFakePlatform(platform, { latencyMs: LATENCY_MS });
  const children = await Promise.all(
    Array.from({ length: workers }, (_, w) =>
      start({
        store: kind,
        location,
        schema,
        platformUrl: server.url,
        workerId: `b${w}`,
        concurrency: 4,
      }),
    ),
  );
  while (platform.visible().length < N) await new Promise((r) => setTimeout(r, 20));
  const calls = platform.calls.filter((c) => c.op === "send");
  const ms = (calls.at(-1)?.at ?? 0) - (calls[0]?.at ?? 0);
  for (const c of children) c.kill("SIGTERM");
  await Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once("exit", r)))),
  );
  await server.close();
  await store.close();
  if (kind === "postgres") {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  return (N / ms) * 1000;
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const rows: Array<Record<string, string | number>> = [];
const kinds: Array<"sqlite" | "postgres"> = (await postgresReachable())
  ? ["sqlite", "postgres"]
  : ["sqlite"];
if (kinds.length === 1)
  console.log(`(PostgreSQL at ${PG_URL} unreachable: PostgreSQL rows skipped)`);
for (const kind of kinds) {
  const one = await run(kind, 1);
  const four = await run(kind, 4);
  rows.push({
    store: kind,
    "1 worker msgs/s": Math.round(one),
    "4 workers msgs/s": Math.round(four),
    "4 ÷ 1": (four / one).toFixed(2),
  });
}
rmSync(dir, { recursive: true, force: true });
console.log(
  `\nscale-out: ${N} intents over 50 targets; worker processes (concurrency 4) over HTTP to one fake platform with ${LATENCY_MS} ms latency; ${availableParallelism()} cores`,
);
console.table(rows);

// C53: CPU per sent message and first platform call at 1k / 10k / 100k pending (`backlog.ts`).
await benchPendingBacklog(undefined, Number(values["backlog-sends"]));
