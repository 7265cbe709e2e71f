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
import { afterAll, describe, expect, it } from "vitest";
import {
  postgresAvailable,
  requirePostgresOrSkip,
  throwawaySchemas,
  withClient,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const env = throwawaySchemas();
afterAll(() => env.dispose());
const superuser =
  available &&
  (await withClient(
    async (c) =>
      (
        await c.query("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
      ).rows[0]?.rolsuper === true,
  ));

const PENDING = 3_000;

describe.runIf(available)("the lease plan", () => {
  it("is planned with sorts, bitmap scans and JIT off", async () => {
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
    expect(config).toEqual(["enable_sort=off", "enable_bitmapscan=off", "jit=off"]);
  });

  it.runIf(superuser)(
    "walks intents_due in order to its limit on a never-analyzed table with a backlog",
    async () => {
      const schema = env.schema();
      const store = env.store(schema);
      await store.open();
      for (let from = 0; from < PENDING; from += 500) {
        await store.enqueueIntents(
          Array.from({ length: 500 }, (_, i) =>
            newIntent(outboundMessage(`m${from + i}`, { target: { id: `c${(from + i) % 100}` } })),
          ),
        );
      }
      const plans = await withClient(async (c) => {
        const logged: string[] = [];
        c.on("notice", (n) => logged.push(String(n.message)));
        await c.query("LOAD 'auto_explain'");
        await c.query("SET auto_explain.log_min_duration = 0");
        await c.query("SET auto_explain.log_nested_statements = on");
        await c.query("SET auto_explain.log_analyze = on");
        await c.query("SET client_min_messages = log");
        const { rows } = await c.query(
          `SELECT id FROM "${schema}"."lease_due_intents"($1::text[], $2, NULL, 16, 'w', $3, $2)`,
          [["pending", "unknown_after_send"], Date.now(), Date.now() + 30_000],
        );
        expect(rows).toHaveLength(16);
        return logged;
      });
      const plan = plans.find((p) => p.includes("WITH picked AS")) ?? "";
      expect(plan).toContain("Index Scan using intents_due on intents i");
      expect(plan).not.toMatch(/Bitmap|Sort/);
      // In order to the limit: it reads the 16 heads of their chats, not the 3,000 pending.
      const walk = /Index Scan using intents_due on intents i[^\n]*actual time=\S+ rows=(\d+)/;
      const scanned = Number(walk.exec(plan)?.[1]);
      expect(scanned).toBeLessThanOrEqual(32);
    },
  );
});
