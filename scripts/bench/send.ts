/**
 * `pnpm bench` (send part): durable send measured side by side in one run. (a) throughput and
 * (b) added latency are in `throughput.ts`.
 * (c) the rate-limited drain (10,000 messages over 100 chats, 1 and 4 processes) is in `drain.ts`;
 * (d) with 100,000 pending intents, time from start to the first send.
 *
 * Options: --quick (smaller sizes); --scale is accepted for `pnpm bench` (used by `drain.ts`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createMessageRuntime, SqliteStateStore } from "../../packages/core/src/index.ts";
import {
  createFakeAdapter,
  FakePlatform,
  inProcessTransport,
  newIntent,
  outboundMessage,
} from "../../packages/core/src/testing/index.ts";

const { values } = parseArgs({
  options: { quick: { type: "boolean", default: false }, scale: { type: "string", default: "20" } },
});
const quick = values.quick;
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

const backlog = quick ? 20_000 : 100_000;
const firstMs = await firstSend(backlog);
console.log(
  `\n(d) ${backlog} pending intents: first platform call ${firstMs.toFixed(1)} ms after the runtime was created`,
);
rmSync(dir, { recursive: true, force: true });
