/**
 * The lease walks `intents_due` in (due_at, seq) order and stops at its limit, also on a table
 * whose statistics say it is empty — a backlog enqueued faster than autovacuum analyzes (its
 * first minute). Planned from those statistics, the lease statement read every pending row
 * through a bitmap scan, anti-joined and sorted them: 20 ms per lease with 7,500 pending, and
 * the queue bench's PostgreSQL rate fell from 1,270 to 790 msgs/s between 2,000 and 10,000
 * messages. And when the chats at the front of the queue are all busy, the lease reads a bounded
 * number of candidates and takes the heads of the other chats past them (migration 10), instead
 * of walking the whole backlog behind the busy chats. The plans inside the lease function are
 * read with `auto_explain`, which needs a superuser (the test database's `postgres` role);
 * otherwise the plan checks are skipped.
 */
import { newIntent, outboundMessage, textReceipt } from "@herald/core/testing";
import type { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  isSuperuser,
  logPlans,
  postgresAvailable,
  requirePostgresOrSkip,
  throwawaySchemas,
  withClient,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const env = throwawaySchemas();
afterAll(() => env.dispose());
const superuser = available && (await isSuperuser());

const PENDING = 3_000;

/** Enqueues {@link PENDING} intents over 100 chats, 500 per call. */
async function backlog(store: ReturnType<typeof env.store>): Promise<void> {
  for (let from = 0; from < PENDING; from += 500) {
    await store.enqueueIntents(
      Array.from({ length: 500 }, (_, i) =>
        newIntent(outboundMessage(`m${from + i}`, { target: { id: `c${(from + i) % 100}` } })),
      ),
    );
  }
}

/** Leases 16 through the function on `client`, channel filter `channel`. */
const lease = (client: Client, schema: string, channel: string | null = null) =>
  client.query(
    `SELECT id FROM "${schema}"."lease_due_intents"($1::text[], $2, $4, 16, 'w', $3, $2)`,
    [["pending", "unknown_after_send"], Date.now(), Date.now() + 30_000, channel],
  );

/** The plan `auto_explain` logs for the lease statement inside the function, run on `client`. */
async function leasePlan(client: Client, schema: string): Promise<string> {
  const logged = await logPlans(client);
  const { rows } = await lease(client, schema);
  expect(rows).toHaveLength(16);
  return logged.find((p) => p.includes("WITH candidates AS")) ?? "";
}

/** How many rows the plan's walk of `intents_due` read (actual). */
function walked(plan: string): number {
  expect(plan).toContain("Index Scan using intents_due on intents i");
  return Number(
    /Index Scan using intents_due on intents i[^\n]*actual time=\S+ rows=(\d+)/.exec(plan)?.[1],
  );
}

describe.runIf(available)("the lease plan", () => {
  it("is planned anew on every call, with sorts, bitmap scans and JIT off", async () => {
    const schema = env.schema();
    const store = env.store(schema);
    await store.open();
    const config = await withClient(
      async (c) =>
        (
          await c.query(
            `SELECT p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = $1 AND p.proname = 'lease_due_intents'`,
            [schema],
          )
        ).rows[0]?.proconfig as string[] | undefined,
    );
    expect(config).toEqual([
      "enable_sort=off",
      "enable_bitmapscan=off",
      "jit=off",
      "plan_cache_mode=force_custom_plan",
    ]);
  });

  it.runIf(superuser)(
    "walks intents_due in order to its limit on a never-analyzed table with a backlog",
    async () => {
      const schema = env.schema();
      const store = env.store(schema);
      await store.open();
      await backlog(store);
      const plan = await withClient((c) => leasePlan(c, schema));
      expect(plan).not.toMatch(/Bitmap|Sort/);
      // In order to the limit: it reads the 16 heads of their chats, not the 3,000 pending.
      expect(walked(plan)).toBeLessThanOrEqual(32);
    },
  );

  it.runIf(superuser)(
    "is planned anew each call: five calls on an empty queue do not leave a generic plan behind",
    async () => {
      const schema = env.schema();
      const store = env.store(schema);
      await store.open();
      await withClient((c) =>
        c.query(`ALTER TABLE "${schema}".intents SET (autovacuum_enabled = off)`),
      );
      const plan = await withClient(async (c) => {
        // A worker polling an empty queue, on one connection: PL/pgSQL's plan cache warms up.
        for (let i = 0; i < 12; i++) await lease(c, schema, i % 2 ? "slack" : null);
        await backlog(store);
        return leasePlan(c, schema);
      });
      expect(walked(plan)).toBeLessThanOrEqual(32);
      // The FIFO check uses intents_unsent_by_key, never a scan of the table.
      expect(plan).not.toMatch(/Hash Anti Join|Seq Scan/);
    },
  );

  it.runIf(superuser)(
    "past chats that are busy, takes the heads of the others without walking the backlog",
    async () => {
      const schema = env.schema();
      const store = env.store(schema);
      await store.open();
      // 2,800 messages of four chats first, then one message in each of four other chats.
      for (let from = 0; from < 2_800; from += 700) {
        await store.enqueueIntents(
          Array.from({ length: 700 }, (_, i) =>
            newIntent(outboundMessage(`m${from + i}`, { target: { id: `busy${(from + i) % 4}` } })),
          ),
        );
      }
      await store.enqueueIntents(
        ["a", "b", "c", "d"].map((id) => newIntent(outboundMessage(id, { target: { id } }))),
      );
      const now = Date.now();
      const first = await store.leaseDueIntents({ owner: "w", now, leaseMs: 30_000, limit: 16 });
      // The busy chats' heads (the first four enqueued) and the four single messages, in due order.
      expect(first.map((i) => (i.message.body as { markdown?: string }).markdown)).toEqual([
        "m0",
        "m1",
        "m2",
        "m3",
        "a",
        "b",
        "c",
        "d",
      ]);
      // Every chat busy now: the next lease reads its cap of candidates (64), not the 2,792
      // behind the busy heads, and takes nothing.
      const logged = await withClient(async (c) => {
        const plans = await logPlans(c);
        const { rows } = await lease(c, schema);
        expect(rows).toHaveLength(0);
        return plans;
      });
      // No index scan in any of its statements read more than that many rows in all.
      const scans = [
        ...logged
          .join("\n")
          .matchAll(
            /Index (?:Only )?Scan using (\S+) on intents[^\n]*actual time=\S+ rows=(\d+) loops=(\d+)/g,
          ),
      ].map((m) => ({ index: m[1], rows: Number(m[2]) * Number(m[3]) }));
      expect(scans.filter((s) => s.index === "intents_due").length).toBeGreaterThanOrEqual(2);
      for (const scan of scans) expect(scan.rows, scan.index).toBeLessThanOrEqual(64);
      // The heads were found one ordering key at a time, through intents_unsent_by_key.
      expect(logged.join("\n")).toContain("intents_unsent_by_key");
      expect(logged.join("\n")).not.toMatch(/Seq Scan on intents/);
      // A busy chat's message sent: its next one is leased through the heads, nothing else.
      const m0 = first[0]?.id ?? "";
      await store.transitionIntents([
        { id: m0, from: "pending", to: "sending", owner: "w", patch: { attempt: 1 } },
        {
          id: m0,
          from: "sending",
          to: "committing",
          owner: "w",
          patch: { receipt: textReceipt(["r"]) },
        },
        { id: m0, from: "committing", to: "sent", owner: "w", patch: {} },
      ]);
      const next = await store.leaseDueIntents({ owner: "w", now, leaseMs: 30_000, limit: 16 });
      expect(next.map((i) => (i.message.body as { markdown?: string }).markdown)).toEqual(["m4"]);
      // Every lease expired, and a lease of 0 ms: each row once (the heads step does not take
      // the rows the walk just leased, whose lease has already ended).
      const again = await store.leaseDueIntents({
        owner: "w2",
        now: now + 60_000,
        leaseMs: 0,
        limit: 16,
      });
      expect(new Set(again.map((i) => i.id)).size).toBe(again.length);
      expect(again.length).toBeGreaterThan(0);
    },
  );

  it("takes a limit above 2^31 - 1 (everything due) as the statement before the function did", async () => {
    const store = env.store(env.schema());
    await store.open();
    await store.enqueueIntents([newIntent(outboundMessage("a"))]);
    const leased = await store.leaseDueIntents({
      now: Date.now(),
      limit: 2 ** 31,
      owner: "w",
      leaseMs: 30_000,
    });
    expect(leased).toHaveLength(1);
  });
});
