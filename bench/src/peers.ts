/**
 * `pnpm bench` (peers part): herald next to what a user would pick instead, in one run on one
 * machine and one fake platform — durable queues (pg-boss, graphile-worker, plainjob) and
 * Chat SDK's Telegram, Slack, Discord and Google Chat adapters. See docs/concepts/performance.md.
 *
 * Environment: `BENCH_N` (messages per queue run, default 10000, 1000 with `--quick`; the crash
 * and chat runs scale with it), `BENCH_SYSTEMS` (a comma-separated subset of the queue systems),
 * `BENCH_PARTS` (`queues`, `chat` or both, the default), `BENCH_CHAT_CHANNELS` (a subset of
 * telegram, slack, discord, googlechat), `BENCH_CHAT_N` / `BENCH_CHAT_TARGETS` (messages and
 * conversations per chat run, default `max(150, BENCH_N × 3 %)` and 30), `BENCH_QUIET_MS` (a crash run ends after this long without a new platform message, default 45 s), `HERALD_TEST_POSTGRES_URL` (default postgres://postgres@127.0.0.1:5432/test).
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { LIMITS } from "./chat/fakes.ts";
import { type ChatResult, runChat } from "./chat/run.ts";
import { CHAT_CHANNELS, type ChatChannel } from "./chat/schedule.ts";
import { type QueueResult, runQueues } from "./queues/run.ts";

const quick = process.argv.includes("--quick");
const N = Number(process.env.BENCH_N ?? (quick ? 1_000 : 10_000));
if (!Number.isInteger(N) || N < 100)
  throw new RangeError(`BENCH_N must be an integer >= 100, got ${process.env.BENCH_N}`);
const parts = (process.env.BENCH_PARTS ?? "queues,chat").split(",");
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

function queueTable(results: QueueResult[]) {
  return results.map((r) => {
    const best = Math.max(
      ...results
        .filter((p) => p.store === r.store && !p.system.startsWith("herald"))
        .map((p) => p.msgsPerSec),
    );
    const herald = r.system.startsWith("herald");
    return {
      store: r.store,
      system: r.system,
      "msgs/s": Math.round(r.msgsPerSec),
      "herald ÷ best peer": herald && Number.isFinite(best) ? (r.msgsPerSec / best).toFixed(2) : "",
      "SIGKILL: lost": r.crash.lost,
      "SIGKILL: duplicated": r.crash.duplicated,
      "restart → all delivered, s":
        r.crash.recoveredInMs !== undefined ? (r.crash.recoveredInMs / 1000).toFixed(1) : "never",
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
  const queues = await runQueues(
    { n: N, crashN, producers: 32, concurrency: 16, pgUrl: PG_URL, postgres, dir },
    log,
  );
  console.log(
    `\n(p1) durable queues: ${N} messages, enqueue (32 calls in flight, one message each) → claim → call the fake platform over HTTP → complete, 16 workers; durable commits. SIGKILL run: ${crashN} queued, the worker process killed at half, restarted; counted on the platform per payload id`,
  );
  console.table(queueTable(queues));
  console.log(
    "notes: every peer is at-least-once; their recovery timers were turned down for the crash run (pg-boss expireInSeconds 2 s instead of 15 min, plainjob timeout 2 s instead of 30 min — counted from enqueue time, so it also requeues jobs still running —, graphile-worker force_unlock_workers on restart, else 4 h); plainjob runs on node:sqlite through its Connection interface",
  );
  for (const store of ["SQLite", "PostgreSQL"] as const) {
    const peers = queues.filter((r) => r.store === store && !r.system.startsWith("herald"));
    const ours = queues.find((r) => r.store === store && r.system.startsWith("herald"));
    if (!ours || peers.length === 0) continue;
    const best = peers.reduce((a, b) => (b.msgsPerSec > a.msgsPerSec ? b : a));
    const ratio = ours.msgsPerSec / best.msgsPerSec;
    const crashOk = ours.crash.lost === 0 && ours.crash.duplicated === 0;
    console.log(
      `goal ${store}: herald ÷ best peer (${best.system}) ${ratio.toFixed(2)} (≥ 1.00: ${ratio >= 1 ? "met" : "NOT met"}); SIGKILL lost ${ours.crash.lost}, duplicated ${ours.crash.duplicated} (0 and 0: ${crashOk ? "met" : "NOT met"})`,
    );
  }
}
if (parts.includes("chat")) {
  const chatCount = Number(process.env.BENCH_CHAT_N ?? Math.max(150, Math.round(N * 0.03)));
  const chats = Number(process.env.BENCH_CHAT_TARGETS ?? 30);
  const chat = await runChat({ count: chatCount, chats, dir, channels }, log);
  console.log(
    `\n(p2) chat: per channel ${chatCount} messages over ${chats} conversations on herald's fake of the platform enforcing its documented limits, every 10th accepted send answered with a connection reset, the sender SIGKILLed once half are visible and started again; counted on the fake per payload id. Limits: ${channels.map((ch) => `${ch}: ${LIMITS[ch]}`).join("; ")}`,
  );
  console.table(chatTable(chat));
  for (const r of chat) if (r.error) console.log(`${r.channel} / ${r.sender}: ${r.error}`);
  console.log(
    "notes: herald's \"lost\" is what was not visible at the end: each is held for an operator (an in-doubt send is never resent blindly; Telegram holds every one, most of them visible — their answer was the reset — Slack holds what history could not settle) or waits behind a held message of its conversation (per-conversation order); Discord and Google Chat resend under the platform key (nonce; requestId / messageId), which the fake deduplicates. Chat SDK has no queue, scheduler or send idempotency, so the app retries 429s after their wait and network errors up to 3 times and keeps a done file for restarts; Slack's @slack/web-api retries resets on its own (default retry policy) and waits out 429s; Telegram's fake numbers messages across chats, so the opt-in probe rarely finds a lost id",
  );
}
rmSync(dir, { recursive: true, force: true });
console.log(`(peers bench: ${((Date.now() - started) / 1000).toFixed(0)} s)`);
