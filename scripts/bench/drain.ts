/**
 * `pnpm bench` (drain part): 10,000 messages over 100 chats under Telegram-like limits — 30/s per
 * bot and 1/s per chat, both scaled ×SCALE — that the fake platform enforces strictly with 429s.
 * Side by side in one run: herald in one process (SQLite in-thread and in a worker thread, in-process fake), herald in one process
 * and in four processes on one PostgreSQL (fake served over HTTP, buckets shared in the store),
 * and a naive sender (everything at once, retry on 429). Each row is the time from the first
 * platform call to the last accepted one, against the theoretical minimum of the limits.
 *
 * The PostgreSQL rows also print the statements (round trips, BEGIN/COMMIT included), the CPU
 * time the gateway processes spent and the CPU time their PostgreSQL backends spent (read from
 * /proc: a server on this host) per delivered message: the store path's cost, which bounds a
 * process's rate (HERALD_BENCH_STATEMENTS=1 lists the statements by kind).
 *
 * Options: --quick (2,000 messages), --scale <k> (default 20), --only <rows> (comma-separated of
 * sqlite, sqlite-worker, pg1, pg4, naive; `sqlite-worker` is the store a gateway opens, with
 * its fsyncs off the event loop). PostgreSQL rows need
 * HERALD_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); skipped with a note
 * when unreachable.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import {
  createMessageRuntime,
  openSqliteStateStore,
  SqliteStateStore,
} from "../../packages/core/src/index.ts";
import {
  createFakeAdapter,
  FakePlatform,
  FakePlatformError,
  inProcessTransport,
  newIntent,
  outboundMessage,
  serveFakePlatform,
} from "../../packages/core/src/testing/index.ts";
import { PostgresStateStore } from "../../packages/store-postgres/src/index.ts";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    scale: { type: "string", default: "20" },
    only: { type: "string" },
  },
  strict: false,
});
const SCALE = Number(values.scale ?? 20);
const M = values.quick ? 2_000 : 10_000;
const CHATS = 100;
const botPerSec = 30 * SCALE;
const chatPerSec = 1 * SCALE;
/** What the fake platform enforces (a strict sliding window each). */
const platformLimits = [
  { scope: "global" as const, limit: botPerSec, intervalMs: 1_000 },
  { scope: "chat" as const, limit: chatPerSec, intervalMs: 1_000 },
];
/** What the adapter declares (the same limits). */
const declared = [
  { scope: "account" as const, limit: botPerSec, intervalMs: 1_000 },
  { scope: "chat" as const, limit: chatPerSec, intervalMs: 1_000 },
];
// A sliding window of `limit` per second lets `limit` through at t = 0, 1 s, 2 s, …: the last
// of `count` messages can go at (ceil(count / limit) − 1) s after the first at the earliest.
const minMs = Math.max(Math.ceil(M / botPerSec) - 1, Math.ceil(M / CHATS / chatPerSec) - 1) * 1000;
const dir = mkdtempSync(join(tmpdir(), "herald-bench-drain-"));
const PG_URL = process.env.HERALD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const workerScript = fileURLToPath(new URL("./worker.ts", import.meta.url));

type Row = {
  ms: number;
  rateLimited: number;
  visible: number;
  totalMs: number;
  /** PostgreSQL statements sent by the gateway processes per delivered message. */
  statementsPerMessage?: number;
  /** CPU ms the gateway processes used per delivered message. */
  cpuMsPerMessage?: number;
  /** CPU ms the PostgreSQL server backends of the gateway processes used per delivered message. */
  serverCpuMsPerMessage?: number;
};

/**
 * CPU time of the PostgreSQL backends serving the bench's gateway processes (application_name
 * `herald-bench-*`), read from /proc (same host only) every 200 ms; a backend's last reading
 * counts when it closes. WAL writer and checkpointer are not included.
 */
function watchServerCpu(client: pg.Client): { stop: () => Promise<number | undefined> } {
  const ticks = new Map<number, number>();
  let readable = true;
  const sample = async () => {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'herald-bench-%'",
    );
    for (const { pid } of rows) {
      try {
        const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
        ticks.set(pid, Number(f[11]) + Number(f[12])); // utime + stime, in clock ticks
      } catch {
        readable = false; // another host, or gone
      }
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const loop = () => {
    running = sample().catch(() => {});
    timer = setTimeout(loop, 200);
  };
  loop();
  return {
    stop: async () => {
      clearTimeout(timer);
      await running;
      await sample().catch(() => {});
      if (!readable && ticks.size === 0) return undefined;
      return ([...ticks.values()].reduce((a, b) => a + b, 0) * 1000) / 100; // 100 ticks/s
    },
  };
}
const only = typeof values.only === "string" ? new Set(values.only.split(",")) : undefined;
const wanted = (row: string) => !only || only.has(row);

/** First to last accepted platform call, in ms. */
function span(platform: FakePlatform): number {
  const ok = platform.calls.filter((c) => c.op === "send" && c.outcome === "ok");
  if (process.env.HERALD_BENCH_HISTOGRAM) {
    const t0 = ok[0]?.at ?? 0;
    const h: number[] = [];
    for (const c of ok) {
      const b = Math.floor((c.at - t0) / 250);
      h[b] = (h[b] ?? 0) + 1;
    }
    console.log([...h].map((x) => x ?? 0).join(" "));
    for (const c of platform.calls.filter((c) => c.outcome === "429").slice(0, 5)) {
      const chat = (c as { chat?: string }).chat;
      const g = ok.filter((o) => o.at > c.at - 1000 && o.at <= c.at).length;
      const ch = ok.filter(
        (o) => o.at > c.at - 1000 && o.at <= c.at && (o as { chat?: string }).chat === chat,
      );
      console.log(
        "429",
        c.at - t0,
        chat,
        "global",
        g,
        "chat",
        ch.length,
        ch.map((o) => o.at - t0).join(","),
      );
    }
  }
  return (ok.at(-1)?.at ?? 0) - (ok[0]?.at ?? 0);
}

async function sqliteOneProcess(thread: "main" | "worker" = "main"): Promise<Row> {
  const platform = new FakePlatform({ limits: platformLimits });
  const path = join(dir, `drain-${thread}.db`);
  const store =
    thread === "worker"
      ? await openSqliteStateStore({ path, synchronous: "FULL" })
      : new SqliteStateStore({ path, synchronous: "FULL" });
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({ transport: inProcessTransport(platform), rateLimits: declared }),
    ],
    delivery: { concurrency: 64, pollIntervalMs: 2, maxInMemoryWaitMs: 2_000 },
  });
  await runtime.start();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < M; i += 1_000) {
    await store.enqueueIntents(
      Array.from({ length: Math.min(1_000, M - i) }, (_, k) =>
        newIntent(outboundMessage(`m${i + k}`, { target: { id: `c${(i + k) % CHATS}` } })),
      ),
    );
  }
  runtime.worker.kick();
  while (platform.visible().length < M) await new Promise((r) => setTimeout(r, 20));
  for (;;) {
    if ((await store.countIntents()).sent === M) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const totalMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await runtime.stop();
  await store.close();
  return {
    ms: span(platform),
    totalMs,
    rateLimited: platform.rateLimited,
    visible: platform.visible().length,
    // The fake platform runs in this process too (its share is the naive row's).
    cpuMsPerMessage: (cpu.user + cpu.system) / 1000 / M,
  };
}

/** What a worker process reports when it stops (see worker.ts): statements sent, CPU ms used. */
type WorkerStats = { statements: number; cpuMs: number };
type Worker = { child: ChildProcess; stats: Promise<WorkerStats> };

function startWorker(config: object): Promise<Worker> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=herald-source", workerScript, JSON.stringify(config)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout?.setEncoding("utf8");
    const stats = new Promise<WorkerStats>((done) => {
      child.stdout?.on("data", (chunk: string) => {
        if (out === "") resolve({ child, stats });
        out += chunk;
      });
      child.once("exit", () => {
        const line = out.split("\n").find((l) => l.startsWith("{"));
        done(line ? (JSON.parse(line) as WorkerStats) : { statements: 0, cpuMs: 0 });
      });
    });
    child.once("error", reject);
  });
}

/** N gateway processes on one PostgreSQL schema, over HTTP to one fake platform. */
async function postgresProcesses(processes: number): Promise<Row> {
  const schema = `herald_bench_${randomBytes(4).toString("hex")}`;
  const store = await PostgresStateStore.connect({ connectionString: PG_URL, schema });
  const platform = new FakePlatform({ idempotent: true, limits: platformLimits });
  const server = await serveFakePlatform(platform);
  const t0 = performance.now();
  for (let i = 0; i < M; i += 1_000) {
    await store.enqueueIntents(
      Array.from({ length: Math.min(1_000, M - i) }, (_, k) =>
        newIntent(outboundMessage(`m${i + k}`, { target: { id: `c${(i + k) % CHATS}` } })),
      ),
    );
  }
  const watcher = new pg.Client({ connectionString: PG_URL });
  await watcher.connect();
  const serverCpu = watchServerCpu(watcher);
  const workers = await Promise.all(
    Array.from({ length: processes }, (_, w) =>
      startWorker({
        store: "postgres",
        location: PG_URL,
        schema,
        platformUrl: server.url,
        workerId: `d${w}`,
        concurrency: Number(
          process.env.HERALD_BENCH_DRAIN_CONCURRENCY ?? Math.ceil(64 / processes),
        ),
        rateLimits: declared,
      }),
    ),
  );
  while (platform.visible().length < M) await new Promise((r) => setTimeout(r, 20));
  const totalMs = performance.now() - t0;
  for (const w of workers) w.child.kill("SIGTERM");
  const serverCpuMs = await serverCpu.stop();
  await watcher.end();
  const stats = await Promise.all(workers.map((w) => w.stats));
  const statements = stats.reduce((a, s) => a + s.statements, 0);
  const cpuMs = stats.reduce((a, s) => a + s.cpuMs, 0);
  await server.close();
  await store.close();
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
  return {
    ms: span(platform),
    totalMs,
    rateLimited: platform.rateLimited,
    visible: platform.visible().length,
    statementsPerMessage: statements / M,
    cpuMsPerMessage: cpuMs / M,
    ...(serverCpuMs !== undefined ? { serverCpuMsPerMessage: serverCpuMs / M } : {}),
  };
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

async function naive(): Promise<Row> {
  const platform = new FakePlatform({ limits: platformLimits });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: M }, async (_, i) => {
      for (;;) {
        try {
          return platform.call({ op: "send", chat: `c${i % CHATS}`, text: `m${i}` });
        } catch (error) {
          if (!(error instanceof FakePlatformError && error.status === 429)) throw error;
          await new Promise((r) => setTimeout(r, (error.retryAfterS ?? 1) * 1000));
        }
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return {
    ms: span(platform),
    totalMs: performance.now() - t0,
    rateLimited: platform.rateLimited,
    visible: platform.visible().length,
    cpuMsPerMessage: (cpu.user + cpu.system) / 1000 / M,
  };
}

const rows: Array<[string, Row]> = [];
const load = loadavg()[0]?.toFixed(1);
if (wanted("sqlite")) rows.push(["herald, 1 process, SQLite FULL", await sqliteOneProcess()]);
if (wanted("sqlite-worker")) {
  rows.push([
    "herald, 1 process, SQLite FULL, store in a worker thread",
    await sqliteOneProcess("worker"),
  ]);
}
if (!wanted("pg1") && !wanted("pg4")) {
  // no PostgreSQL rows asked for
} else if (await postgresReachable()) {
  if (wanted("pg1"))
    rows.push(["herald, 1 process, PostgreSQL (HTTP)", await postgresProcesses(1)]);
  if (wanted("pg4")) {
    rows.push([
      "herald, 4 processes, PostgreSQL (HTTP), shared buckets",
      await postgresProcesses(4),
    ]);
  }
} else console.log(`(PostgreSQL at ${PG_URL} unreachable: PostgreSQL rows skipped)`);
if (wanted("naive")) rows.push(["naive (all at once, retry on 429)", await naive()]);
rmSync(dir, { recursive: true, force: true });
console.log(
  `\n(drain) ${M} messages over ${CHATS} chats; the fake enforces ${botPerSec}/s per bot and ${chatPerSec}/s per chat (Telegram ×${SCALE}); theoretical minimum ${(minMs / 1000).toFixed(2)} s (first to last call); ${availableParallelism()} cores, load average ${load} at the start (a shared machine slows every row)`,
);
console.table(
  rows.map(([sender, r]) => ({
    sender,
    "first→last call s": (r.ms / 1000).toFixed(2),
    "× minimum": (r.ms / minMs).toFixed(3),
    "enqueue→all sent s": (r.totalMs / 1000).toFixed(2),
    "429s": r.rateLimited,
    delivered: r.visible,
    "PG statements/msg": r.statementsPerMessage?.toFixed(2) ?? "",
    "gateway CPU ms/msg": r.cpuMsPerMessage?.toFixed(3) ?? "",
    "PG server CPU ms/msg": r.serverCpuMsPerMessage?.toFixed(2) ?? "",
  })),
);
