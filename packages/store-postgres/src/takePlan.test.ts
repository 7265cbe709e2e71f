/**
 * A shared bucket's token is found through `rate_limit_slots_free` (migration 8), not by reading
 * and sorting every slot of the bucket: with only the primary key, `take_tokens` read all 600
 * slots of a 600-per-second bot bucket and sorted them for each call (0.41 ms a call against
 * 0.04 ms; the drain bench's four processes spent their PostgreSQL CPU there). The plans inside
 * the function are read with `auto_explain`, which needs a superuser (the test database's
 * `postgres` role); otherwise the plan checks are skipped.
 */
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

const LIMIT = 600;

/** The plans `auto_explain` logs for the statements inside one `take_tokens` call. */
async function takePlans(client: Client, schema: string, windowMs: number): Promise<string[]> {
  const logged = await logPlans(client);
  await client.query(`SELECT * FROM "${schema}"."take_tokens"($1, $2, $3, $4)`, [
    ["bot"],
    [LIMIT],
    [windowMs],
    [0],
  ]);
  await client.query("SET client_min_messages = notice");
  return logged.filter((p) => p.includes("rate_limit_slots"));
}

describe.runIf(available)("taking a shared bucket's token", () => {
  it("has an index on (bucket, free_at)", async () => {
    const schema = env.schema();
    await env.store(schema).open();
    const def = await withClient(
      async (c) =>
        (
          await c.query(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'rate_limit_slots_free'",
            [schema],
          )
        ).rows[0]?.indexdef as string | undefined,
    );
    expect(def).toMatch(/\(bucket, free_at\)$/);
  });

  it.runIf(superuser)(
    "walks the free-time index to the first free slot, and to the earliest one when none is free",
    async () => {
      const schema = env.schema();
      const store = env.store(schema);
      await store.open();
      const bot = { key: "bot", limit: LIMIT, windowMs: 60_000 };
      // Half the slots taken for a minute: the free ones are behind them in slot order.
      for (let i = 0; i < LIMIT / 2; i += 50) {
        const taken = await Promise.all(
          Array.from({ length: 50 }, () => store.sharedLimits.takeTokens([bot])),
        );
        expect(taken.every((t) => t.waitMs === 0)).toBe(true);
      }
      await withClient((c) => c.query(`ANALYZE "${schema}".rate_limit_slots`));
      const free = await withClient((c) => takePlans(c, schema, 60_000));
      const pick = free.find((p) => p.includes("FOR UPDATE")) ?? "";
      expect(pick).toContain("Index Scan using rate_limit_slots_free");
      expect(pick).not.toMatch(/Sort|Bitmap/);
      expect(
        Number(/Index Scan[^\n]*actual time=\S+ rows=(\d+)/.exec(pick)?.[1]),
      ).toBeLessThanOrEqual(1);

      // Every slot taken: the refused call reads the bucket's earliest free time off the index.
      for (let i = 0; i < LIMIT; i += 50) {
        await Promise.all(Array.from({ length: 50 }, () => store.sharedLimits.takeTokens([bot])));
      }
      const refused = await withClient((c) => takePlans(c, schema, 60_000));
      const earliest = refused.find((p) => p.includes("spent_wait")) ?? refused.join("\n");
      expect(earliest).toContain("rate_limit_slots_free");
      expect(earliest).not.toMatch(/Sort|Seq Scan/);
    },
  );
});
