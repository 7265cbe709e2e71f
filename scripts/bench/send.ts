/**
 * `pnpm bench` (send part): durable send measured side by side in one run. (a) throughput and
 * (b) added latency are in `throughput.ts`.
 * (c) 10,000 messages over 100 chats against a fake enforcing 30/s per bot and 1/s per chat
 *     (both scaled ×SCALE): completion time vs the theoretical minimum and 429 count, next to a
 *     naive sender (everything at once, retry on 429);
 * (d) with 100,000 pending intents, time from start to the first send.
 *
 * Options: --quick (smaller sizes), --scale <k> (default 20).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createMessageRuntime, SqliteStateStore } from "../../packages/core/src/index.ts";
import {
  createFakeAdapter,
  FakePlatform,
  FakePlatformError,
  inProcessTransport,
  newIntent,
  outboundMessage,
} from "../../packages/core/src/testing/index.ts";

const { values } = parseArgs({
  options: { quick: { type: "boolean", default: false }, scale: { type: "string", default: "20" } },
});
const quick = values.quick;
const SCALE = Number(values.scale);
const dir = mkdtempSync(join(tmpdir(), "herald-bench-send-"));
let files = 0;
const dbPath = () => join(dir, `b${++files}.db`);

function runtimeFor(
  platform: FakePlatform,
  opts: {
    path?: string;
    synchronous?: "FULL" | "NORMAL";
    rateLimits?: Parameters<typeof createFakeAdapter>[0]["rateLimits"];
    concurrency?: number;
  } = {},
) {
  const store = new SqliteStateStore({
    path: opts.path ?? dbPath(),
    synchronous: opts.synchronous ?? "FULL",
  });
  const adapter = createFakeAdapter({
    transport: inProcessTransport(platform),
    ...(opts.rateLimits ? { rateLimits: opts.rateLimits } : {}),
  });
  const runtime = createMessageRuntime({
    store,
    adapters: [adapter],
    delivery: { concurrency: opts.concurrency ?? 32, pollIntervalMs: 2, maxInMemoryWaitMs: 2_000 },
  });
  return { store, adapter, runtime };
}

// ── (c) rate-limited fan-out ─────────────────────────────────────────────────
const botPerSec = 30 * SCALE;
const chatPerSec = 1 * SCALE;
const limits = [
  { scope: "global" as const, limit: botPerSec, intervalMs: 1_000 },
  { scope: "chat" as const, limit: chatPerSec, intervalMs: 1_000 },
];

async function scheduled(n: number, chats: number) {
  const platform = new FakePlatform({ limits });
  const { runtime, store } = runtimeFor(platform, {
    rateLimits: [
      { scope: "account", limit: botPerSec, intervalMs: 1_000 },
      { scope: "chat", limit: chatPerSec, intervalMs: 1_000 },
    ],
    concurrency: 64,
  });
  await runtime.start();
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1_000) {
    await store.enqueueIntents(
      Array.from({ length: Math.min(1_000, n - i) }, (_, k) =>
        newIntent(outboundMessage(`m${i + k}`, { target: { id: `c${(i + k) % chats}` } })),
      ),
    );
  }
  runtime.worker.kick();
  for (;;) {
    if ((await store.countIntents()).sent === n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const ms = performance.now() - t0;
  await runtime.stop();
  await store.close();
  return { ms, rateLimited: platform.rateLimited, visible: platform.visible().length };
}

async function naive(n: number, chats: number) {
  const platform = new FakePlatform({ limits });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      for (;;) {
        try {
          return platform.call({ op: "send", chat: `c${i % chats}`, text: `m${i}` });
        } catch (error) {
          if (!(error instanceof FakePlatformError && error.status === 429)) throw error;
          await new Promise((r) => setTimeout(r, (error.retryAfterS ?? 1) * 1000));
        }
      }
    }),
  );
  return {
    ms: performance.now() - t0,
    rateLimited: platform.rateLimited,
    visible: platform.visible().length,
  };
}

// ── (d) first send with a big backlog ────────────────────────────────────────
async function firstSend(backlog: number) {
  const path = dbPath();
  const seed = new SqliteStateStore({ path, synchronous: "NORMAL" });
  for (let i = 0; i < backlog; i += 5_000) {
    await seed.enqueueIntents(
      Array.from({ length: Math.min(5_000, backlog - i) }, (_, k) =>
        newIntent(outboundMessage(`m${i + k}`, { target: { id: `c${(i + k) % 1000}` } })),
      ),
    );
  }
  await seed.close();
  let first = 0;
  const platform = new FakePlatform();
  const original = platform.call.bind(platform);
  const t0 = performance.now();
  platform.call = (c) => {
    if (!first) first = performance.now() - t0;
    return original(c);
  };
  const { runtime, store } = runtimeFor(platform, { path });
  await runtime.start();
  while (!first) await new Promise((r) => setTimeout(r, 1));
  await runtime.stop(100);
  await store.close();
  return first;
}

const M = quick ? 2_000 : 10_000;
const chats = 100;
// A sliding window of `limit` per second lets `limit` through at t = 0, 1 s, 2 s, …: the last
// of `count` messages can go at (ceil(count / limit) − 1) s at the earliest.
const minMs = Math.max(Math.ceil(M / botPerSec) - 1, Math.ceil(M / chats / chatPerSec) - 1) * 1000;
const s = await scheduled(M, chats);
const nv = await naive(M, chats);
console.log(
  `\n(c) ${M} messages over ${chats} chats, fake enforces ${botPerSec}/s per bot and ${chatPerSec}/s per chat (×${SCALE}); theoretical minimum ${(minMs / 1000).toFixed(2)} s`,
);
console.table([
  {
    sender: "herald scheduler + durable queue",
    seconds: (s.ms / 1000).toFixed(2),
    "× minimum": (s.ms / minMs).toFixed(3),
    "429s": s.rateLimited,
    delivered: s.visible,
  },
  {
    sender: "naive (all at once, retry on 429)",
    seconds: (nv.ms / 1000).toFixed(2),
    "× minimum": (nv.ms / minMs).toFixed(3),
    "429s": nv.rateLimited,
    delivered: nv.visible,
  },
]);

const backlog = quick ? 20_000 : 100_000;
const firstMs = await firstSend(backlog);
console.log(
  `\n(d) ${backlog} pending intents: first platform call ${firstMs.toFixed(1)} ms after the runtime was created`,
);
rmSync(dir, { recursive: true, force: true });
