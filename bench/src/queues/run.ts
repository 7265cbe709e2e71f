/**
 * Durable queues side by side: herald (SQLite, PostgreSQL) next to pg-boss and graphile-worker
 * (PostgreSQL) and plainjob (SQLite), each run in its own process doing enqueue → claim → call
 * the fake platform → complete, on the same fake platform over HTTP, with durable commits
 * (SQLite `synchronous = FULL`, PostgreSQL `synchronous_commit = on`, fsync on) and the same
 * concurrency (32 enqueue calls in flight, 16 messages delivered at once).
 *
 * - Throughput: every variant (each peer tuned as its docs recommend, and at its defaults) runs
 *   `rounds` times, interleaved (round 1 of every variant, then round 2…), so each sees the same
 *   drift of a shared machine; the table shows the median and the spread. Commits per message:
 *   PostgreSQL `pg_stat_database.xact_commit` of the bench's own database (read-only
 *   transactions — polls, counts — included), SQLite the transactions the process committed.
 * - Crash: `crashN` messages enqueued, a worker process SIGKILLed once half are visible on the
 *   platform, a new one started; then the platform is counted per payload id: lost = ids never
 *   visible, duplicated = visible messages beyond one per id.
 * - Control: the crash run's exact setup (same recovery settings, same backlog) without the
 *   kill, watched for as long as the system's recovery could still requeue something: its
 *   duplicates must be 0, or the harness (not the system) made them.
 * - A variant that fails (PostgreSQL out of connections, a child that dies) keeps its row,
 *   marked `failed: reason`; the others go on.
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
import { CRASH_TIMEOUT_MS } from "./plainjob.ts";
import type { SystemConfig, SystemName, Tuning } from "./system.ts";

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
  /** Interleaved throughput runs per variant (≥ 3 for a median with a spread). */
  rounds: number;
  /** A throughput run stops after this long; its rate is then what was done so far. */
  limitMs: number;
};

/** One throughput run of one variant. */
export type QueueSample = {
  msgsPerSec: number;
  /** Commits per message (see the module comment for what each store counts). */
  commitsPerMsg: number | undefined;
  /** Duplicates on the platform (must be 0: nothing was killed). */
  duplicated: number;
  /** Messages done when the run stopped at its time limit (undefined: all were done). */
  stoppedAt?: number;
};

/** A crash or control run's count. */
export type CrashCount = { lost: number; duplicated: number; recoveredInMs: number | undefined };

/** One variant's results: its samples in round order (`undefined` = that round failed). */
export type QueueResult = {
  system: SystemName;
  tuning: Tuning;
  store: "SQLite" | "PostgreSQL";
  samples: Array<QueueSample | undefined>;
  /** Why a round failed (the first failure). */
  failed?: string;
  /** Crash and control runs (tuned variants only); a string is why it failed. */
  crash?: CrashCount | string;
  control?: CrashCount | string;
  /** plainjob's `timeout` in its crash and control runs, ms. */
  recoveryTimeoutMs?: number;
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
  tuning: Tuning,
  o: QueueBenchOptions,
  fastRecovery: boolean,
  recoveryTimeoutMs: number | undefined,
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
    tuning,
    fastRecovery,
    ...(recoveryTimeoutMs === undefined ? {} : { recoveryTimeoutMs }),
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

/** Commits of every transaction in the bench's database so far (flushed stats of ended backends). */
async function xactCommits(pgUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const r = await client.query(
      "SELECT xact_commit::float8 AS n FROM pg_stat_database WHERE datname = current_database()",
    );
    return Number(r.rows[0].n);
  } finally {
    await client.end();
  }
}

async function throughput(system: SystemName, tuning: Tuning, o: QueueBenchOptions) {
  return withEnv(
    system,
    tuning,
    o,
    false,
    undefined,
    async (config, platform): Promise<QueueSample> => {
      const pgBefore = STORE[system] === "PostgreSQL" ? await xactCommits(o.pgUrl) : undefined;
      const child = startChild(childScript, {
        ...config,
        mode: "run",
        n: o.n,
        producers: o.producers,
        limitMs: o.limitMs,
      });
      const { ms, commits, done } = JSON.parse(await child.firstLine) as {
        ms: number;
        commits?: number;
        done: number;
      };
      await child.exited;
      let commitsPerMsg = commits !== undefined ? commits / Math.max(1, done) : undefined;
      if (pgBefore !== undefined) {
        // A backend's counters reach pg_stat_database when it ends (the child's have) or within
        // a second while idle.
        await new Promise((r) => setTimeout(r, 1_100));
        // (A stopped run's enqueues all committed; its count includes them.)
        commitsPerMsg = ((await xactCommits(o.pgUrl)) - pgBefore - 1) / Math.max(1, done);
      }
      const t = tally(platform, o.n);
      if (done >= o.n && t.lost > 0)
        throw new Error(`${t.lost} of ${o.n} never reached the platform`);
      return {
        msgsPerSec: (done / ms) * 1000,
        // A stopped run committed every enqueue but not every completion: no per-message figure.
        commitsPerMsg: done < o.n ? undefined : commitsPerMsg,
        duplicated: t.duplicated,
        ...(done < o.n ? { stoppedAt: done } : {}),
      };
    },
  );
}

/**
 * How long a control run keeps watching after the last message: past the point where the
 * system's recovery could still requeue a job it holds (plainjob's timeout counts from enqueue;
 * pg-boss fails a job whose heartbeat is 10 s stale).
 */
function settleMs(system: SystemName, recoveryTimeoutMs: number): number {
  if (system === "plainjob") return recoveryTimeoutMs + 2_000;
  return system === "pg-boss" ? 13_000 : 3_000;
}

/**
 * plainjob's crash-run timeout: three times the backlog's drain time at its measured rate (its
 * timeout counts from enqueue time, so it must outlast the queue), at least 15 s.
 */
function recoveryTimeout(o: QueueBenchOptions, msgsPerSec: number | undefined): number {
  if (!msgsPerSec) return 120_000;
  return Math.max(CRASH_TIMEOUT_MS, Math.ceil(((3 * o.crashN) / msgsPerSec) * 1000));
}

async function crash(
  system: SystemName,
  o: QueueBenchOptions,
  killAtHalf: boolean,
  recoveryTimeoutMs: number,
) {
  return withEnv(
    system,
    "tuned",
    o,
    true,
    recoveryTimeoutMs,
    async (config, platform): Promise<CrashCount> => {
      const n = o.crashN;
      const seed = startChild(childScript, {
        ...config,
        mode: "enqueue",
        n,
        producers: o.producers,
      });
      await seed.firstLine;
      await seed.exited;
      const first = startChild(childScript, { ...config, mode: "work", n, producers: 0 });
      await first.firstLine;
      let second = first;
      let killedAt = Date.now();
      if (killAtHalf) {
        await until(() => platform.visible().length >= n / 2, 120_000);
        await kill(first);
        killedAt = Date.now();
        second = startChild(childScript, { ...config, mode: "work", n, producers: 0 });
        await second.firstLine;
      }
      const settle = killAtHalf ? 3_000 : settleMs(system, recoveryTimeoutMs);
      // plainjob's orphans come back only once its timeout passed: wait at least that long.
      const quietMs = Math.max(QUIET_MS, system === "plainjob" ? recoveryTimeoutMs + 5_000 : 0);
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
          if (recoveredAt === undefined && tally(platform, n).unique === n)
            recoveredAt = lastChange;
          const quiet = Date.now() - lastChange;
          return (recoveredAt !== undefined && quiet > settle) || quiet > quietMs;
        },
        Math.max(120_000, quietMs + 60_000),
        50,
      );
      await kill(second);
      const t = tally(platform, n);
      return {
        lost: t.lost,
        duplicated: t.duplicated,
        recoveredInMs: recoveredAt !== undefined ? recoveredAt - killedAt : undefined,
      };
    },
  );
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "";

/** The variants compared: herald once per store, every peer tuned and at its defaults. */
function variants(o: QueueBenchOptions): Array<{ system: SystemName; tuning: Tuning }> {
  const systems: SystemName[] = ["herald-sqlite", "plainjob"];
  if (o.postgres) systems.push("herald-postgres", "pg-boss", "graphile-worker");
  const only = process.env.BENCH_SYSTEMS?.split(",");
  const chosen = only ? systems.filter((s) => only.includes(s)) : systems;
  return chosen.flatMap((system) =>
    system.startsWith("herald")
      ? [{ system, tuning: "tuned" as const }]
      : [
          { system, tuning: "tuned" as const },
          { system, tuning: "defaults" as const },
        ],
  );
}

/**
 * Runs every variant: `rounds` interleaved throughput runs, then one crash run and one control
 * run per system (tuned). Nothing one variant does ends the others.
 */
export async function runQueues(
  o: QueueBenchOptions,
  log: (line: string) => void,
): Promise<QueueResult[]> {
  const results: QueueResult[] = variants(o).map(({ system, tuning }) => ({
    system,
    tuning,
    store: STORE[system],
    samples: [],
  }));
  for (let round = 1; round <= o.rounds; round++) {
    for (const r of results) {
      log(`  round ${round}/${o.rounds}: ${r.system} (${r.tuning}), ${o.n} messages…`);
      try {
        r.samples.push(await throughput(r.system, r.tuning, o));
      } catch (e) {
        r.samples.push(undefined);
        r.failed ??= message(e);
        log(`  ${r.system} (${r.tuning}) failed: ${message(e)}`);
      }
    }
  }
  for (const r of results) {
    if (r.tuning !== "tuned") continue;
    const rates = r.samples.flatMap((x) => (x ? [x.msgsPerSec] : [])).sort((a, b) => a - b);
    const timeoutMs = recoveryTimeout(o, rates[Math.floor(rates.length / 2)]);
    r.recoveryTimeoutMs = timeoutMs;
    for (const [kind, killAtHalf] of [
      ["crash", true],
      ["control", false],
    ] as const) {
      log(`  ${r.system}: ${kind} run, ${o.crashN} messages…`);
      try {
        r[kind] = await crash(r.system, o, killAtHalf, timeoutMs);
      } catch (e) {
        r[kind] = message(e);
        log(`  ${r.system} ${kind} run failed: ${message(e)}`);
      }
    }
  }
  return results;
}
