/**
 * `pnpm bench` (scale part, C53 · [H25]): the cost of one message must not depend on how many
 * wait behind it. With 1k, 10k and 100k intents pending over 1,000 chats in a SQLite store
 * (written in one statement by `bulkInsertSqliteIntents`), a runtime starts and delivers
 * `--backlog-sends` messages (default 1,000) to an in-process fake platform; side by side:
 * `start()` time, the first platform call after the runtime was created, and CPU per sent
 * message (the process's user + system CPU over the drain, fake platform included: the same
 * at every size). Goals: CPU per message at 100k ≤ 1.2 × at 1k; first call at 100k ≤ 1 s.
 * Called from `scale.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createMessageRuntime, SqliteStateStore } from "@herald/core";
import {
  bulkInsertSqliteIntents,
  createFakeAdapter,
  FakePlatform,
  inProcessTransport,
} from "@herald/core/testing";

async function one(dir: string, pending: number, sends: number) {
  const path = join(dir, `p${pending}.db`);
  await new SqliteStateStore({ path }).close(); // the schema
  bulkInsertSqliteIntents(path, { count: pending, chats: 1_000 });
  const platform = new FakePlatform();
  const original = platform.call.bind(platform);
  let first = 0;
  let sent = 0;
  const t0 = performance.now();
  platform.call = (c) => {
    if (!first) first = performance.now() - t0;
    sent += 1;
    return original(c);
  };
  const store = new SqliteStateStore({ path });
  const runtime = createMessageRuntime({
    store,
    adapters: [createFakeAdapter({ transport: inProcessTransport(platform) })],
    delivery: { concurrency: 32, pollIntervalMs: 5 },
  });
  await runtime.start();
  const startMs = performance.now() - t0;
  while (!first) await new Promise((r) => setTimeout(r, 1));
  const cpu0 = process.cpuUsage();
  const at = sent;
  const want = Math.min(sends, pending - at);
  const deadline = performance.now() + 300_000;
  while (sent - at < want) {
    if (performance.now() > deadline)
      throw new Error(`backlog bench: ${sent - at} of ${want} sent`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const cpu = process.cpuUsage(cpu0);
  const count = sent - at;
  await runtime.stop(1_000);
  await store.close();
  return { startMs, firstMs: first, cpuMsPerMessage: (cpu.user + cpu.system) / 1000 / count };
}

/** Runs the backlog bench at each size and prints one table. */
export async function benchPendingBacklog(
  sizes: readonly number[] = [1_000, 10_000, 100_000],
  sends = 1_000,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "herald-bench-backlog-"));
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const loadBefore = load();
  const rows: Array<Record<string, string | number>> = [];
  let base = 0;
  try {
    for (const pending of sizes) {
      const r = await one(dir, pending, sends);
      if (!base) base = r.cpuMsPerMessage;
      rows.push({
        pending,
        "start() ms": Math.round(r.startMs),
        "first platform call ms": Math.round(r.firstMs),
        "CPU ms / sent message": r.cpuMsPerMessage.toFixed(3),
        "÷ first size": (r.cpuMsPerMessage / base).toFixed(2),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\npending backlog (C53): ${sends} messages sent with 1k / 10k / 100k intents pending over 1,000 chats (SQLite, concurrency 32, in-process fake platform); goals: CPU ÷ 1k ≤ 1.2, first call at 100k ≤ 1,000 ms; load average ${loadBefore} → ${load()}`,
  );
  console.table(rows);
}
