/**
 * Durable queues side by side: herald (SQLite, PostgreSQL) next to pg-boss and graphile-worker
 * (PostgreSQL) and plainjob (SQLite), each in its own process doing enqueue → claim → call the
 * fake platform → complete, on the same fake platform over HTTP, with durable commits
 * (SQLite `synchronous = FULL`, PostgreSQL `synchronous_commit = on`).
 *
 * - Throughput: `n` messages, `producers` enqueue calls in flight, `concurrency` workers.
 * - Crash: `crashN` messages enqueued, a worker process SIGKILLed once half are visible on the
 *   platform, a new one started; then the platform is counted per payload id: lost = ids never
 *   visible, duplicated = visible messages beyond one per id.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakePlatform, serveFakePlatform } from "@herald/core/testing";
import pg from "pg";
import { kill, startChild, until } from "../proc.ts";
import type { SystemConfig, SystemName } from "./system.ts";

/** A crash run ends when nothing new reached the platform for this long. */
export const QUIET_MS = Number(process.env.BENCH_QUIET_MS ?? 45_000);
const childScript = fileURLToPath(new URL("./child.ts", import.meta.url));

/** Options of {@link runQueues}. */
export type QueueBenchOptions = {
  n: number;
  crashN: number;
  producers: number;
  concurrency: number;
  pgUrl: string;
  /** Whether PostgreSQL is reachable (else its systems are skipped with a note). */
  postgres: boolean;
  dir: string;
};

/** One system's results. */
export type QueueResult = {
  system: SystemName;
  store: "SQLite" | "PostgreSQL";
  msgsPerSec: number;
  /** Duplicates in the plain (crash-free) run: should be 0 for everyone. */
  plainDuplicates: number;
  crash: { lost: number; duplicated: number; recoveredInMs: number | undefined };
};

const STORE: Record<SystemName, "SQLite" | "PostgreSQL"> = {
  "herald-sqlite": "SQLite",
  plainjob: "SQLite",
  "herald-postgres": "PostgreSQL",
  "pg-boss": "PostgreSQL",
  "graphile-worker": "PostgreSQL",
};

/** Visible messages per payload id (the text). */
function tally(platform: FakePlatform, n: number) {
  const seen = new Map<string, number>();
  for (const m of platform.visible()) seen.set(m.text, (seen.get(m.text) ?? 0) + 1);
  let unique = 0;
  let duplicated = 0;
  for (let i = 0; i < n; i++) {
    const c = seen.get(`m${i}`) ?? 0;
    if (c > 0) unique += 1;
    if (c > 1) duplicated += c - 1;
  }
  return { unique, lost: n - unique, duplicated };
}

async function dropSchema(pgUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

async function withEnv<T>(
  system: SystemName,
  o: QueueBenchOptions,
  fastRecovery: boolean,
  fn: (config: SystemConfig, platform: FakePlatform) => Promise<T>,
): Promise<T> {
  const tag = `bench_${system.replace(/\W/g, "_")}_${randomBytes(3).toString("hex")}`;
  const platform = new FakePlatform();
  const server = await serveFakePlatform(platform);
  const config: SystemConfig = {
    system,
    sqlitePath: join(o.dir, `${tag}.db`),
    pgUrl: o.pgUrl,
    schema: tag,
    platformUrl: server.url,
    concurrency: o.concurrency,
    fastRecovery,
  };
  try {
    return await fn(config, platform);
  } finally {
    await server.close();
    if (STORE[system] === "PostgreSQL") await dropSchema(o.pgUrl, tag);
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(`${config.sqlitePath}${suffix}`, { force: true });
  }
}

async function throughput(system: SystemName, o: QueueBenchOptions) {
  return withEnv(system, o, false, async (config, platform) => {
    const child = startChild(childScript, {
      ...config,
      mode: "run",
      n: o.n,
      producers: o.producers,
    });
    const { ms } = JSON.parse(await child.firstLine) as { ms: number };
    await child.exited;
    const t = tally(platform, o.n);
    if (t.lost > 0) throw new Error(`${system}: ${t.lost} of ${o.n} never reached the platform`);
    return { msgsPerSec: (o.n / ms) * 1000, duplicated: t.duplicated };
  });
}

async function crash(system: SystemName, o: QueueBenchOptions) {
  return withEnv(system, o, true, async (config, platform) => {
    const n = o.crashN;
    const seed = startChild(childScript, { ...config, mode: "enqueue", n, producers: o.producers });
    await seed.firstLine;
    await seed.exited;
    const first = startChild(childScript, { ...config, mode: "work", n, producers: 0 });
    await first.firstLine;
    await until(() => platform.visible().length >= n / 2, 120_000);
    await kill(first);
    const killedAt = Date.now();
    const second = startChild(childScript, { ...config, mode: "work", n, producers: 0 });
    await second.firstLine;
    // Done when every id is visible and nothing new arrived for 3 s (late retries count),
    // or when nothing arrived for QUIET_MS (what is missing then is lost to this run).
    let lastCount = -1;
    let lastChange = Date.now();
    let recoveredAt: number | undefined;
    await until(
      () => {
        const count = platform.visible().length;
        if (count !== lastCount) {
          lastCount = count;
          lastChange = Date.now();
        }
        if (recoveredAt === undefined && tally(platform, n).unique === n) recoveredAt = lastChange;
        const quiet = Date.now() - lastChange;
        return (recoveredAt !== undefined && quiet > 3_000) || quiet > QUIET_MS;
      },
      90_000,
      50,
    );
    await kill(second);
    const t = tally(platform, n);
    return {
      lost: t.lost,
      duplicated: t.duplicated,
      recoveredInMs: recoveredAt !== undefined ? recoveredAt - killedAt : undefined,
    };
  });
}

/** Runs every system: throughput, then the crash run. */
export async function runQueues(
  o: QueueBenchOptions,
  log: (line: string) => void,
): Promise<QueueResult[]> {
  const systems: SystemName[] = ["herald-sqlite", "plainjob"];
  if (o.postgres) systems.push("herald-postgres", "pg-boss", "graphile-worker");
  const only = process.env.BENCH_SYSTEMS?.split(",");
  if (only) systems.splice(0, systems.length, ...systems.filter((s) => only.includes(s)));
  const results: QueueResult[] = [];
  for (const system of systems) {
    log(`  ${system}: ${o.n} messages…`);
    const t = await throughput(system, o);
    log(`  ${system}: SIGKILL run, ${o.crashN} messages…`);
    const c = await crash(system, o);
    results.push({
      system,
      store: STORE[system],
      msgsPerSec: t.msgsPerSec,
      plainDuplicates: t.duplicated,
      crash: c,
    });
  }
  return results;
}
