import { IntentConflictError, StoreUnavailableError } from "@herald/core";
import { newIntent, outboundMessage, textReceipt } from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import {
  blockedBackend,
  postgresAvailable,
  requirePostgresOrSkip,
  throwawaySchemas,
  withClient,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const env = throwawaySchemas();
afterAll(() => env.dispose());

/** A store on a fresh schema whose connections are findable by application name. */
async function namedStore() {
  const schema = env.schema();
  const store = env.store(schema, { applicationName: schema });
  await store.open();
  return { schema, store };
}

describe.skipIf(!available)("PostgresStateStore failures", () => {
  it("fails an enqueue whose connection is killed mid-transaction and keeps none of it", async () => {
    const { schema, store } = await namedStore();
    await withClient(async (raw) => {
      // Park the batch after its first insert: its second key waits on this uncommitted row.
      await raw.query("BEGIN");
      await raw.query(
        `INSERT INTO "${schema}".intents (id, idempotency_key, channel, ordering_key, status,
           due_at, message, operation, created_at, updated_at)
         VALUES ('raw', 'k2', 'qa', 'o', 'pending', 0, '{}', '{}', 0, 0)`,
      );
      const batch = store.enqueueIntents([
        newIntent(outboundMessage("one"), { idempotencyKey: "k1" }),
        newIntent(outboundMessage("two"), { idempotencyKey: "k2" }),
      ]);
      const failed = expect(batch).rejects.toBeInstanceOf(StoreUnavailableError);
      const pid = await blockedBackend(raw, schema);
      await raw.query("SELECT pg_terminate_backend($1)", [pid]);
      await failed;
      await raw.query("ROLLBACK");
    });
    // The pool dropped the dead connection; the store keeps working and holds nothing partial.
    expect(await store.getIntentByIdempotencyKey("k1")).toBeUndefined();
    expect(await store.listIntents()).toEqual([]);
    const retried = await store.enqueueIntents([
      newIntent(outboundMessage("one"), { idempotencyKey: "k1" }),
    ]);
    expect(retried[0]?.created).toBe(true);
  });

  it("fails a transition whose connection is killed while indexing its receipt, writing nothing", async () => {
    const { schema, store } = await namedStore();
    const [r] = await store.enqueueIntents([newIntent()]);
    const id = r?.intent.id ?? "";
    await store.transitionIntents([{ id, from: "pending", to: "sending" }]);
    await withClient(async (raw) => {
      // The status update lands first, then the registry insert waits on this uncommitted row.
      await raw.query("BEGIN");
      await raw.query(
        `INSERT INTO "${schema}".receipts (channel, account_id, platform_message_id, intent_id, part_index, recorded_at)
         VALUES ('qa', 'bot-1', 'p1', $1, 0, 0)`,
        [id],
      );
      const transition = store.transitionIntents([
        { id, from: "sending", to: "committing", patch: { receipt: textReceipt(["p1"]) } },
      ]);
      const failed = expect(transition).rejects.toBeInstanceOf(StoreUnavailableError);
      await raw.query("SELECT pg_terminate_backend($1)", [await blockedBackend(raw, schema)]);
      await failed;
      await raw.query("ROLLBACK");
    });
    const after = await store.getIntent(id);
    expect(after?.status).toBe("sending");
    expect(after?.receipt).toBeUndefined();
    expect(
      await store.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: "p1" }),
    ).toBeUndefined();
    const [committed] = await store.transitionIntents([
      { id, from: "sending", to: "committing", patch: { receipt: textReceipt(["p1"]) } },
    ]);
    expect(committed?.status).toBe("committing");
  });

  it("survives idle connections being terminated by the server", async () => {
    const { schema, store } = await namedStore();
    await Promise.all([store.countIntents(), store.countIntents(), store.countIntents()]);
    await withClient((raw) =>
      raw.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [schema],
      ),
    );
    // The pool drops connections that die while idle (no unhandled "error" event); a call that
    // raced onto one fails typed, and the next one reconnects.
    await new Promise((r) => setTimeout(r, 100));
    expect((await store.countIntents()).pending).toBe(0);
  });

  it("reports an unreachable server as StoreUnavailableError", async () => {
    const store = env.store(env.schema(), {
      connectionString: "postgres://postgres@127.0.0.1:1/test",
      pool: { connectionTimeoutMs: 2000 },
    });
    await expect(store.open()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.enqueueIntents([newIntent()])).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it("passes herald errors through unchanged", async () => {
    const { store } = await namedStore();
    const [r] = await store.enqueueIntents([newIntent()]);
    const err = await store
      .updateIntent(r?.intent.id ?? "", { status: "sending" }, { attempt: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntentConflictError);
  });

  it("answers a call still waiting for a connection when the store is closed, not after connectionTimeoutMs", async () => {
    const schema = env.schema();
    const store = env.store(schema, {
      applicationName: schema,
      // An hour: a call the closing pool does not serve would time the test out (no assertion
      // on elapsed time).
      pool: { max: 1, connectionTimeoutMs: 3_600_000 },
    });
    const [r] = await store.enqueueIntents([newIntent()]);
    const id = r?.intent.id ?? "";
    await withClient(async (raw) => {
      await raw.query("BEGIN");
      await raw.query(`LOCK TABLE "${schema}".intents IN ACCESS EXCLUSIVE MODE`);
      // The one connection waits on the lock; a second call waits for that connection.
      const first = store.getIntent(id);
      await blockedBackend(raw, schema);
      const second = store.getIntent(id);
      await new Promise((res) => setTimeout(res, 20));
      const closed = store.close();
      await raw.query("ROLLBACK");
      expect((await first)?.id).toBe(id);
      // Before: the pool, once ending, served no waiting call; it failed after connectionTimeoutMs ("timeout
      // exceeded when trying to connect"). A runtime's settle poll in that spot held every wait.
      expect((await second)?.id).toBe(id);
      await closed;
    });
  });
});
