/**
 * `pnpm bench` (scale part, C53 · [H25]): the cost of one message must not depend on how many
 * wait behind it. With 1k, 10k and 100k intents pending over 1,000 chats — in a SQLite file
 * (written in one statement by `bulkInsertSqliteIntents`) and in a PostgreSQL schema (one
 * `INSERT … SELECT generate_series`; skipped when PostgreSQL is unreachable) — a runtime starts
 * and delivers `--backlog-sends` messages (default 1,000) to an in-process fake platform; side by
 * side: `start()` time, the first platform call after the runtime was created, and CPU per sent
 * message (this process's user + system CPU over the drain, fake platform included: the same at
 * every size; PostgreSQL's own CPU is not counted). Goals: CPU per message at 100k ≤ 1.2 × at
 * 1k; first call at 100k ≤ 1 s. Called from `scale.ts`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createMessageRuntime, type MessageStateStore, SqliteStateStore } from "@herald/core";
import {
  bulkInsertSqliteIntents,
  createFakeAdapter,
  FakePlatform,
  inProcessTransport,
} from "@herald/core/testing";
import { PostgresStateStore } from "@herald/store-postgres";
import pg from "pg";

type Kind = "sqlite" | "postgres";

/** A store of `kind` holding `pending` intents over 1,000 chats, and how to drop it. */
async function backlogStore(
  kind: Kind,
  dir: string,
  pgUrl: string,
  pending: number,
): Promise<{ store: MessageStateStore; drop(): Promise<void> }> {
  if (kind === "sqlite") {
    const path = join(dir, `p${pending}.db`);
    await new SqliteStateStore({ path }).close(); // the schema
    bulkInsertSqliteIntents(path, { count: pending, chats: 1_000 });
    return { store: new SqliteStateStore({ path }), drop: async () => {} };
  }
  const schema = `herald_backlog_${randomBytes(4).toString("hex")}`;
  await (await PostgresStateStore.connect({ connectionString: pgUrl, schema })).close();
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    // The rows `enqueueIntents` writes (ordering key as `JSON.stringify` spells it).
    await client.query(
      `INSERT INTO "${schema}".intents (id, idempotency_key, channel, account_id, ordering_key,
         status, attempt, due_at, message, operation, created_at, updated_at)
       SELECT 'bulk-' || i, 'bulk:' || i, 'qa', 'bot-1',
         '["qa","bot-1","c' || (i % 1000) || '",""]', 'pending', 0, $1,
         json_build_object('id', 'bulk-m' || i, 'channel', 'qa', 'accountId', 'bot-1',
           'direction', 'outbound', 'body', json_build_object('markdown', 'm' || i),
           'target', json_build_object('kind', 'group', 'id', 'c' || (i % 1000))),
         '{"kind":"send"}', $1, $1
       FROM generate_series(0, $2::integer - 1) AS i`,
      [Date.now(), pending],
    );
  } finally {
    await client.end();
  }
  return {
    store: await PostgresStateStore.connect({ connectionString: pgUrl, schema }),
    async drop() {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  };
}

async function one(kind: Kind, dir: string, pgUrl: string, pending: number, sends: number) {
  const { store, drop } = await backlogStore(kind, dir, pgUrl, pending);
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
  const runtime = createMessageRuntime({
    store,
    adapters: [createFakeAdapter({ transport: inProcessTransport(platform) })],
    delivery: { concurrency: 32, pollIntervalMs: 5 },
  });
  try {
    await runtime.start();
    const startMs = performance.now() - t0;
    while (!first) await new Promise((r) => setTimeout(r, 1));
    const cpu0 = process.cpuUsage();
    const at = sent;
    const want = Math.min(sends, pending - at);
    const deadline = performance.now() + 300_000;
    while (sent - at < want) {
      if (performance.now() > deadline) {
        throw new Error(`backlog bench: ${sent - at} of ${want} sent`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const cpu = process.cpuUsage(cpu0);
    const count = sent - at;
    return { startMs, firstMs: first, cpuMsPerMessage: (cpu.user + cpu.system) / 1000 / count };
  } finally {
    await runtime.stop(1_000);
    await store.close();
    await drop();
  }
}

async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** Runs the backlog bench at each size, on SQLite and PostgreSQL, and prints one table. */
export async function benchPendingBacklog(
  sizes: readonly number[] = [1_000, 10_000, 100_000],
  sends = 1_000,
  pgUrl = process.env.HERALD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test",
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "herald-bench-backlog-"));
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const loadBefore = load();
  const kinds: Kind[] = (await postgresReachable(pgUrl)) ? ["sqlite", "postgres"] : ["sqlite"];
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const kind of kinds) {
      let base = 0;
      for (const pending of sizes) {
        const r = await one(kind, dir, pgUrl, pending, sends);
        if (!base) base = r.cpuMsPerMessage;
        rows.push({
          store: kind,
          pending,
          "start() ms": Math.round(r.startMs),
          "first platform call ms": Math.round(r.firstMs),
          "CPU ms / sent message": r.cpuMsPerMessage.toFixed(3),
          "÷ first size": (r.cpuMsPerMessage / base).toFixed(2),
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\npending backlog (C53): ${sends} messages sent with ${sizes.join(" / ")} intents pending over 1,000 chats (concurrency 32, in-process fake platform${kinds.length === 1 ? `; PostgreSQL at ${pgUrl} unreachable: skipped` : ""}); goals: CPU ÷ first size ≤ 1.2, first call at the largest ≤ 1,000 ms; load average ${loadBefore} → ${load()}`,
  );
  console.table(rows);
}
