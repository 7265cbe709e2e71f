/**
 * `pnpm bench` (peers part): herald next to what a user would pick instead, in one run on one
 * machine and one fake platform — durable queues (pg-boss, graphile-worker, plainjob) and
 * Chat SDK's Telegram, Slack, Discord and Google Chat adapters. See docs/concepts/performance.md.
 *
 * Environment: `BENCH_N` (messages per queue run, default 10000, 1000 with `--quick`; the crash
 * and chat runs scale with it), `BENCH_ROUNDS` (interleaved runs per queue variant and per
 * receiver, default 3), `BENCH_LIMIT_MS` (a queue run stops after this long and reports its rate
 * so far, default 60 s), `BENCH_SYSTEMS` (a comma-separated subset of the queue systems),
 * `BENCH_INGEST_N` (webhooks per receive-side run, default 5000, 1000 with `--quick`),
 * `BENCH_INGEST_KINDS` (a subset of bare, herald, herald-inthread, bolt),
 * `BENCH_PARTS` (a subset of `queues`, `ingest`, `chat`; all by default), `BENCH_CHAT_CHANNELS` (a subset of
 * telegram, slack, discord, googlechat), `BENCH_CHAT_N` / `BENCH_CHAT_TARGETS` (messages and
 * conversations per chat run, default `max(150, BENCH_N × 3 %)` and 30), `BENCH_QUIET_MS` (a crash run ends after this long without a new platform message, default 45 s), `HERALD_TEST_POSTGRES_URL` (default postgres://postgres@127.0.0.1:5432/test).
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { LIMITS } from "./chat/fakes.ts";
import { type ChatResult, runChat } from "./chat/run.ts";
import { CHAT_CHANNELS, type ChatChannel } from "./chat/schedule.ts";
import { type IngestResult, type IngestSample, runIngest } from "./ingest/run.ts";
import { type CrashCount, type QueueResult, type QueueSample, runQueues } from "./queues/run.ts";

const quick = process.argv.includes("--quick");
const N = Number(process.env.BENCH_N ?? (quick ? 1_000 : 10_000));
if (!Number.isInteger(N) || N < 100)
  throw new RangeError(`BENCH_N must be an integer >= 100, got ${process.env.BENCH_N}`);
const parts = (process.env.BENCH_PARTS ?? "queues,ingest,chat").split(",");
const channels = (process.env.BENCH_CHAT_CHANNELS?.split(",") ?? [
  ...CHAT_CHANNELS,
]) as ChatChannel[];
for (const ch of channels)
  if (!CHAT_CHANNELS.includes(ch))
    throw new RangeError(
      `BENCH_CHAT_CHANNELS: unknown channel ${ch} (${CHAT_CHANNELS.join(", ")})`,
    );
const PG_URL = process.env.HERALD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const dir = mkdtempSync(join(tmpdir(), "herald-bench-peers-"));
const log = (line: string) => process.stderr.write(`${line}\n`);

/** One statement on the server's default database (creating and dropping the bench's own). */
async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The machine's load, printed beside every figure (the host is shared). */
export function loadLine(): string {
  const [one, five, fifteen] = loadavg().map((x) => x.toFixed(2));
  return `load average ${one} / ${five} / ${fifteen} (1 / 5 / 15 min) on ${availableParallelism()} cores`;
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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
/** `median (min–max)` of a list, or "" when empty. */
const spread = (xs: number[], digits: number) =>
  xs.length === 0
    ? ""
    : `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const label = (r: QueueResult) =>
  r.system.startsWith("herald") ? "herald" : `${r.system} (${r.tuning})`;

/**
 * herald ÷ the best peer of its store, per round (the fastest peer run of that round, tuned or
 * at its defaults — whichever was faster), so a ratio compares runs made side by side.
 */
function ratios(results: QueueResult[], store: QueueResult["store"]) {
  const ours = results.find((r) => r.store === store && r.system.startsWith("herald"));
  const peers = results.filter((r) => r.store === store && !r.system.startsWith("herald"));
  if (!ours || peers.length === 0) return [];
  const out: number[] = [];
  ours.samples.forEach((s, round) => {
    const best = Math.max(...peers.map((p) => p.samples[round]?.msgsPerSec ?? 0));
    if (s && best > 0) out.push(s.msgsPerSec / best);
  });
  return out;
}

const crashCell = (c: QueueResult["crash"], pick: (c: CrashCount) => string) =>
  c === undefined ? "" : typeof c === "string" ? `failed: ${c}` : pick(c);

function queueTable(results: QueueResult[]) {
  return results.map((r) => {
    const ok = r.samples.filter((x): x is QueueSample => x !== undefined);
    const herald = r.system.startsWith("herald");
    const rs = herald ? ratios(results, r.store) : [];
    const commits = ok.flatMap((x) => (x.commitsPerMsg === undefined ? [] : [x.commitsPerMsg]));
    const stopped = ok.filter((x) => x.stoppedAt !== undefined);
    return {
      store: r.store,
      system: label(r),
      "msgs/s median (min–max)":
        ok.length > 0
          ? spread(
              ok.map((x) => x.msgsPerSec),
              0,
            )
          : `failed: ${r.failed}`,
      runs: `${ok.length}/${r.samples.length}${r.failed && ok.length > 0 ? ` (failed: ${r.failed})` : ""}${stopped.length > 0 ? ` (${stopped.length} stopped at the time limit: ${stopped.map((x) => x.stoppedAt).join(", ")} done)` : ""}`,
      "commits/msg": spread(commits, 2),
      "÷ best peer": rs.length > 0 ? spread(rs, 2) : "",
      "dup. (no kill)": ok.reduce((a, x) => a + x.duplicated, 0),
      "SIGKILL lost": crashCell(r.crash, (c) => String(c.lost)),
      "SIGKILL dup.": crashCell(r.crash, (c) => String(c.duplicated)),
      "restart → all, s": crashCell(r.crash, (c) =>
        c.recoveredInMs !== undefined ? (c.recoveredInMs / 1000).toFixed(1) : "never",
      ),
      "control lost / dup.": crashCell(r.control, (c) => `${c.lost} / ${c.duplicated}`),
    };
  });
}

const INGEST_LABEL: Record<IngestResult["kind"], string> = {
  bare: "floor: node:http, body read, 200",
  herald: "herald Telegram webhook, dedupe on (store in a worker thread, as the gateway)",
  "herald-inthread": "herald Telegram webhook, dedupe on (store on the main thread)",
  bolt: "Bolt HTTPReceiver (@slack/bolt), signature check, no dedupe",
};

/** A receiver's acks/s ÷ the floor's, per round. */
function perRound(r: IngestResult, floor: IngestResult | undefined): number[] {
  const out: number[] = [];
  r.samples.forEach((s, i) => {
    const f = floor?.samples[i];
    if (s && f) out.push(s.acksPerSec / f.acksPerSec);
  });
  return out;
}

function ingestTable(results: IngestResult[]) {
  const floor = results.find((r) => r.kind === "bare");
  return results.map((r) => {
    const ok = r.samples.filter((x): x is IngestSample => x !== undefined);
    const rs = r.kind === "bare" ? [] : perRound(r, floor);
    return {
      receiver: INGEST_LABEL[r.kind],
      "acks/s median (min–max)":
        ok.length > 0
          ? spread(
              ok.map((x) => x.acksPerSec),
              0,
            )
          : `failed: ${r.failed}`,
      "÷ floor": rs.length > 0 ? spread(rs, 2) : "",
      "p50 ms": spread(
        ok.map((x) => x.p50Ms),
        2,
      ),
      "p99 ms": spread(
        ok.map((x) => x.p99Ms),
        2,
      ),
      "CPU ms/ack": spread(
        ok.map((x) => x.cpuMsPerAck),
        3,
      ),
      runs: `${ok.length}/${r.samples.length}${r.failed && ok.length > 0 ? ` (failed: ${r.failed})` : ""}`,
    };
  });
}

function chatTable(results: ChatResult[]) {
  return results.map((r) => ({
    channel: r.channel,
    sender: r.sender,
    delivered: r.delivered,
    lost: r.lost,
    duplicated: r.duplicated,
    "429s": r.otherRateLimited ? `${r.rateLimited} (+${r.otherRateLimited} reads)` : r.rateLimited,
    "wall s": (r.wallMs / 1000).toFixed(1),
    "sender's own count": Object.entries(r.own)
      .map(([k, v]) => `${k} ${v}`)
      .join(", "),
  }));
}

const postgres = await postgresReachable();
const started = Date.now();
const cpu = cpus()[0]?.model ?? "unknown CPU";
console.log(`\npeers: ${availableParallelism()} cores (${cpu}), Node ${process.version}`);
if (!postgres)
  console.log(
    `(PostgreSQL at ${PG_URL} unreachable: pg-boss, graphile-worker and herald-postgres skipped)`,
  );
if (parts.includes("queues")) {
  const crashN = Math.min(Math.round(N / 2), 2_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  // The bench's own database: its xact_commit counts only the bench's commits (others may be
  // using the shared server's databases at the same time).
  const benchDb = `herald_bench_${process.pid}`;
  const benchUrl = new URL(PG_URL);
  benchUrl.pathname = `/${benchDb}`;
  if (postgres) await adminQuery(`CREATE DATABASE "${benchDb}"`);
  const queues = await runQueues(
    {
      n: N,
      crashN,
      producers: 32,
      concurrency: 16,
      pgUrl: benchUrl.toString(),
      postgres,
      dir,
      rounds,
      limitMs: Number(process.env.BENCH_LIMIT_MS ?? 60_000),
    },
    log,
  ).finally(async () => {
    if (postgres) await adminQuery(`DROP DATABASE IF EXISTS "${benchDb}" WITH (FORCE)`);
  });
  console.log(
    `\n(p1) durable queues: ${N} messages, enqueue (32 calls in flight, one message per call) → claim → call the fake platform over HTTP → complete, 16 in flight; SQLite synchronous=FULL, PostgreSQL synchronous_commit=on (fsync on). Each variant ${rounds}× interleaved, each run its own process: median (min–max). SIGKILL run: ${crashN} queued, the worker process killed at half, restarted; control: the same without the kill. Counted on the platform per payload id. ${loadLine()}`,
  );
  console.table(queueTable(queues));
  for (const r of queues)
    console.log(
      `  ${label(r)}, msgs/s per round: ${r.samples.map((x) => (x ? Math.round(x.msgsPerSec) : "failed")).join(", ")}`,
    );
  console.log(
    `notes: commits/msg — PostgreSQL: pg_stat_database.xact_commit of the bench's database per message (read-only transactions such as polls included); SQLite: transactions the process committed (herald: group commits, its lease transactions included; plainjob: each transaction and each write outside one). herald's concurrent enqueues share group commits; each peer commits every enqueue call on its own. Crash handling, each peer's own: pg-boss heartbeatSeconds 10 (supervised every second), plainjob timeout ${((queues.find((r) => r.system === "plainjob")?.recoveryTimeoutMs ?? 0) / 1000).toFixed(0)} s (counted from enqueue time, so set to 3× the crash backlog's drain time at plainjob's measured rate, at least 15 s), graphile-worker force_unlock_workers for the dead process's workers on restart. plainjob runs on node:sqlite through its Connection interface`,
  );
  for (const store of ["SQLite", "PostgreSQL"] as const) {
    const rs = ratios(queues, store);
    const ours = queues.find((r) => r.store === store && r.system.startsWith("herald"));
    if (!ours || rs.length === 0) continue;
    const m = median(rs);
    const crash = ours.crash;
    const crashOk = typeof crash === "object" && crash.lost === 0 && crash.duplicated === 0;
    console.log(
      `goal ${store}: herald ÷ best peer (tuned or defaults, per round), median of ${rs.length} rounds ${spread(rs, 2)} (≥ 1.00: ${m >= 1 ? "met" : "NOT met"}); SIGKILL ${typeof crash === "object" ? `lost ${crash.lost}, duplicated ${crash.duplicated}` : `failed: ${crash}`} (0 and 0: ${crashOk ? "met" : "NOT met"})`,
    );
  }
  for (const r of queues) {
    const c = r.control;
    if (typeof c === "object" && (c.duplicated > 0 || c.lost > 0))
      console.log(
        `harness check FAILED: ${label(r)} control run (no kill) lost ${c.lost}, duplicated ${c.duplicated}`,
      );
  }
}
if (parts.includes("ingest")) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const requests = Number(process.env.BENCH_INGEST_N ?? (quick ? 1_000 : 5_000));
  const inFlight = 32;
  const ingest = await runIngest(
    {
      requests,
      warmup: Math.min(500, Math.round(requests / 5)),
      inFlight,
      rounds,
      dir,
      kinds: (process.env.BENCH_INGEST_KINDS?.split(",") ?? [
        "bare",
        "herald",
        "herald-inthread",
        "bolt",
      ]) as IngestResult["kind"][],
    },
    log,
  );
  console.log(
    `\n(p2) receive side: ${requests} webhook POSTs per run (each a new update), ${inFlight} in flight on kept-alive connections, after a warm-up; each receiver in its own process, ${rounds} runs interleaved: median (min–max). ${loadLine()}`,
  );
  console.table(ingestTable(ingest));
  const floor = ingest.find((r) => r.kind === "bare");
  for (const r of ingest.filter((x) => x.kind !== "bare")) {
    const rs = perRound(r, floor);
    if (rs.length === 0) continue;
    console.log(
      `${INGEST_LABEL[r.kind]} ÷ floor: ${spread(rs, 2)}${r.kind.startsWith("herald") ? ` (goal ≥ 0.60: ${median(rs) >= 0.6 ? "met" : "NOT met"})` : ""}`,
    );
  }
}
if (parts.includes("chat")) {
  const chatCount = Number(process.env.BENCH_CHAT_N ?? Math.max(150, Math.round(N * 0.03)));
  const chats = Number(process.env.BENCH_CHAT_TARGETS ?? 30);
  const chat = await runChat({ count: chatCount, chats, dir, channels }, log);
  console.log(
    `\n(p3) chat: per channel ${chatCount} messages over ${chats} conversations on herald's fake of the platform enforcing its documented limits, every 10th accepted send answered with a connection reset, the sender SIGKILLed once half are visible and started again; counted on the fake per payload id. Limits: ${channels.map((ch) => `${ch}: ${LIMITS[ch]}`).join("; ")}`,
  );
  console.table(chatTable(chat));
  for (const r of chat) if (r.error) console.log(`${r.channel} / ${r.sender}: ${r.error}`);
  console.log(
    "notes: herald's \"lost\" is what was not visible at the end: each is held for an operator (an in-doubt send is never resent blindly; Telegram holds every one, most of them visible — their answer was the reset — Slack holds what history could not settle) or waits behind a held message of its conversation (per-conversation order); Discord and Google Chat resend under the platform key (nonce; requestId / messageId), which the fake deduplicates. Chat SDK has no queue, scheduler or send idempotency, so the app retries 429s after their wait and network errors up to 3 times and keeps a done file for restarts; Slack's @slack/web-api retries resets on its own (default retry policy) and waits out 429s; Telegram's fake numbers messages across chats, so the opt-in probe rarely finds a lost id",
  );
}
rmSync(dir, { recursive: true, force: true });
console.log(`(peers bench: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
