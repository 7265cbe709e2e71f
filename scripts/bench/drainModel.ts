/**
 * `pnpm bench` (drain model): the rate-limited drain's token path on manual time — no store, no
 * platform, no machine noise. 64 workers each loop: take the tokens (the scheduler's line, with
 * the lead a delivery attempt uses) → a `sending` write of W ms → wait until the tokens are
 * back → the call (counted by the platform at its start, answered 1 ms later; re-counted at
 * the answer) → a `sent` write of W ms. 10,000 messages over 100 chats under Telegram ×20
 * (600/s per bot, 20/s per chat), checked against a strict sliding window. Each row is first
 * to last call against the theoretical minimum (16 s), with and without the lead: what the
 * scheduler itself costs the drain, whatever the machine's load.
 *
 * Options: --quick (W = 5 ms only).
 */
import { parseArgs } from "node:util";
import { RateLimitScheduler } from "../../packages/core/src/index.ts";
import type { RateLimitCall, RateLimitScope } from "../../packages/core/src/message/rateLimit.ts";

const { values } = parseArgs({ options: { quick: { type: "boolean", default: false } } });
const M = 10_000;
const CHATS = 100;
const WORKERS = 64;
const LATENCY_MS = 1;
const scopes: RateLimitScope[] = [
  { scope: "account", limit: 600, intervalMs: 1_000 },
  { scope: "chat", limit: 20, intervalMs: 1_000 },
];
const minMs = 16_000;

async function model(writeMs: number, lead: boolean): Promise<number> {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const manual = {
    setTimeout(fn: () => void, ms: number) {
      seq += 1;
      timers.set(seq, { at: now + Math.max(0, ms), fn });
      return seq;
    },
    clearTimeout(handle: unknown) {
      timers.delete(handle as number);
    },
  };
  const wait = (ms: number) => new Promise<void>((r) => manual.setTimeout(r, ms));
  const s = new RateLimitScheduler({ clock: () => now, timers: manual });
  const calls: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < M; i = next++) {
      const id = `c${i % CHATS}`;
      const call: RateLimitCall = {
        channel: "qa",
        accountId: "bot",
        target: { kind: "direct", id },
        operation: "send",
        route: `send:text:${id}`,
      };
      const got = await s.acquire(scopes, call, {
        maxWaitMs: 60_000,
        leadMs: lead ? Math.min(25, writeMs) : 0,
      });
      if (got.takenAt === undefined) throw new Error("gave up waiting");
      await wait(writeMs);
      if (now < got.takenAt) await wait(got.takenAt - now);
      const startedAt = Math.max(now, got.takenAt);
      s.restamp(scopes, call, got.takenAt, startedAt);
      calls.push(now);
      await wait(LATENCY_MS);
      s.settle(scopes, call, startedAt, now);
      await wait(writeMs);
    }
  };
  let finished = false;
  const done = Promise.all(Array.from({ length: WORKERS }, worker)).then(() => {
    finished = true;
  });
  const settle = async () => {
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
  };
  while (!finished) {
    await settle();
    if (finished) break;
    let first: [number, { at: number; fn: () => void }] | undefined;
    for (const e of timers) if (!first || e[1].at < first[1].at) first = e;
    if (!first) throw new Error("the model stalled");
    timers.delete(first[0]);
    now = Math.max(now, first[1].at);
    first[1].fn();
  }
  await done;
  calls.sort((a, b) => a - b);
  for (let i = 600; i < calls.length; i++) {
    if ((calls[i] ?? 0) - (calls[i - 600] ?? 0) < 1_000) throw new Error("over the bot limit");
  }
  return ((calls.at(-1) ?? 0) - (calls[0] ?? 0)) / minMs;
}

const rows = [];
for (const writeMs of values.quick ? [5] : [0, 5, 10]) {
  rows.push({
    "write ms (sending, sent)": writeMs,
    "× minimum, lead": (await model(writeMs, true)).toFixed(4),
    "× minimum, no lead": (await model(writeMs, false)).toFixed(4),
  });
}
console.log(
  `\n(drain model) ${M} messages over ${CHATS} chats, 600/s per bot, 20/s per chat, ${WORKERS} workers, platform answers ${LATENCY_MS} ms after a call; manual time (no machine noise)`,
);
console.table(rows);
