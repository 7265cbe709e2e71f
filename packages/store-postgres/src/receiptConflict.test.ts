/**
 * Receipt ids are unique across processes (DESIGN §12; CASES C40): two stores on one schema (two
 * gateways) committing one platform message id for two intents — one wins, the other gets
 * `ReceiptConflictError`, also when the winner commits after the loser's statement began.
 */
import { ReceiptConflictError } from "@herald/core";
import { newIntent, textReceipt } from "@herald/core/testing";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { PostgresStateStore } from "./PostgresStateStore.ts";
import {
  blockedBackend,
  postgresAvailable,
  requirePostgresOrSkip,
  TEST_POSTGRES_URL,
  throwawaySchemas,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const env = throwawaySchemas();
afterAll(() => env.dispose());

async function sendingIntent(store: PostgresStateStore): Promise<string> {
  const [r] = await store.enqueueIntents([newIntent()]);
  const id = r?.intent.id ?? "";
  await store.transitionIntents([{ id, from: "pending", to: "sending" }]);
  return id;
}

const commit = (store: PostgresStateStore, id: string, pid: string) =>
  store.transitionIntents([
    { id, from: "sending", to: "committing", patch: { receipt: textReceipt([pid]) } },
    { id, from: "committing", to: "sent" },
  ]);

describe.skipIf(!available)("receipt ids are unique across processes", () => {
  it("lets one of two processes committing one id at once win; the other is refused", async () => {
    const schema = env.schema();
    const [a, b] = [env.store(schema), env.store(schema)] as [
      PostgresStateStore,
      PostgresStateStore,
    ];
    await Promise.all([a.open(), b.open()]);
    for (let round = 0; round < 10; round++) {
      const [x, y] = await Promise.all([sendingIntent(a), sendingIntent(b)]);
      const outcomes = await Promise.allSettled([
        commit(a, x, `race-${round}`),
        commit(b, y, `race-${round}`),
      ]);
      const won = outcomes.filter((o) => o.status === "fulfilled");
      const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason] : []));
      expect(won).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toBeInstanceOf(ReceiptConflictError);
      const holder = await a.lookupReceipt({
        channel: "qa",
        accountId: "bot-1",
        platformMessageId: `race-${round}`,
      });
      expect(holder?.intentId).toBe((refused[0] as ReceiptConflictError).heldByIntentId);
    }
  });

  it("refuses a receipt whose id another transaction commits after the statement's snapshot", async () => {
    const schema = env.schema();
    const loser = env.store(schema, { applicationName: `${schema}_b` });
    await loser.open();
    const winner = await sendingIntent(loser);
    const late = await sendingIntent(loser);
    const raw = new Client({ connectionString: TEST_POSTGRES_URL });
    await raw.connect();
    try {
      // Another process's commit, still open: its registry row is not visible to the statement.
      await raw.query("BEGIN");
      await raw.query(
        `INSERT INTO "${schema}".receipts
           (channel, account_id, platform_message_id, intent_id, part_index, recorded_at)
         VALUES ('qa', 'bot-1', 'late-id', $1, 0, 0)`,
        [winner],
      );
      const refused = commit(loser, late, "late-id").then(
        () => undefined,
        (e: unknown) => e,
      );
      // The statement waits on the row's unique key, then meets it committed.
      await blockedBackend(raw, `${schema}_b`);
      await raw.query("COMMIT");
      const error = await refused;
      expect(error).toBeInstanceOf(ReceiptConflictError);
      expect(error).toMatchObject({ platformMessageId: "late-id", heldByIntentId: winner });
      expect((await loser.getIntent(late))?.status).toBe("sending");
    } finally {
      await raw.end();
    }
  });
});
