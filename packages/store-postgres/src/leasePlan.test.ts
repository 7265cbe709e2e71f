/**
 * The lease walks `intents_due` in (due_at, seq) order and stops at its limit, also on a table
 * whose statistics say it is empty — a backlog enqueued faster than autovacuum analyzes (its
 * first minute). Planned from those statistics, the lease statement read every pending row
 * through a bitmap scan, anti-joined and sorted them: 20 ms per lease with 7,500 pending, and
 * the queue bench's PostgreSQL rate fell from 1,270 to 790 msgs/s between 2,000 and 10,000
 * messages. The plan inside the lease function (migration 6) is read with `auto_explain`, which
 * needs a superuser (the test database's `postgres` role); otherwise the plan checks are skipped.
 */
import { newIntent, outboundMessage } from "@herald/core/testing";
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
  return logged.find((p) => p.includes("WITH picked AS")) ?? "";
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
