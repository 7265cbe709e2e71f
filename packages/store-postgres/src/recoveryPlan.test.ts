/**
 * C53 ([H25]): the recovery reads (`listRecoveryCandidates`) walk their indexes — the leased
 * unsent intents `intents_leased`, the skewed ones `intents_due` from the bound — and read the
 * candidates only, not the pending backlog, on a table analyzed or not (a backlog written
 * faster than autovacuum analyzes). The plans inside the functions are read with
 * `auto_explain`, which needs a superuser (the test database's `postgres` role); otherwise the
 * plan checks are skipped and only the answers are checked.
 */
import { newIntent, outboundMessage } from "@herald/core/testing";
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

describe.skipIf(!available)("recovery reads on PostgreSQL (C53)", () => {
  it("C53 reads the leased and the skewed intents through their indexes, not the backlog", async () => {
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
    const far = Date.now() + 10 * 86_400_000;
    await store.enqueueIntents([newIntent(outboundMessage("skewed"), { nextAttemptAt: far })]);
    await store.leaseDueIntents({ owner: "w:1", now: Date.now(), leaseMs: 60_000, limit: 3 });
    expect(await store.listRecoveryCandidates({ kind: "leased", limit: 200 })).toHaveLength(3);
    const skew = await store.listRecoveryCandidates({
      kind: "skewed",
      dueAfter: far - 1,
      limit: 9,
    });
    expect(skew.map((i) => i.message.body?.markdown)).toEqual(["skewed"]);
    if (!superuser) return;
    for (const analyzed of [false, true]) {
      await withClient(async (client) => {
        if (analyzed) await client.query(`ANALYZE "${schema}".intents`);
        const logged = await logPlans(client);
        await client.query(`SELECT id FROM "${schema}".recovery_leased_intents(0, 200)`);
        await client.query(`SELECT id FROM "${schema}".recovery_skewed_intents($1, 200)`, [
          far - 1,
        ]);
        const leased = logged.find((p) => p.includes("lease_owner IS NOT NULL")) ?? "";
        const skewed = logged.find((p) => p.includes("due_after")) ?? logged.at(-1) ?? "";
        expect(leased, leased).toMatch(/Index Scan using intents_leased .*actual .* rows=3 /);
        expect(skewed, skewed).toMatch(/Index Scan using intents_due .*actual .* rows=1 /);
      });
    }
  });
});
