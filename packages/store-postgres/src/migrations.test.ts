import { SchemaTooNewError, StoreUnavailableError } from "@herald/core";
import { newIntent } from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "./migrations.ts";
import { PostgresStateStore } from "./PostgresStateStore.ts";
import {
  postgresAvailable,
  requirePostgresOrSkip,
  TEST_POSTGRES_URL,
  throwawaySchemas,
  withClient,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const env = throwawaySchemas();
afterAll(() => env.dispose());

describe.skipIf(!available)("PostgresStateStore schema and migrations", () => {
  it("migrates once when four processes start on an empty schema at the same time", async () => {
    const schema = env.schema();
    const stores = Array.from({ length: 4 }, () => env.store(schema, { pool: { max: 2 } }));
    await Promise.all(stores.map((s) => s.open()));
    for (const s of stores) expect(await s.schemaVersion()).toBe(POSTGRES_SCHEMA_VERSION);
    const applied = await withClient((c) =>
      c.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`),
    );
    expect(applied.rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    const [r] = await (stores[3] as PostgresStateStore).enqueueIntents([newIntent()]);
    expect((await stores[0]?.getIntent(r?.intent.id ?? ""))?.status).toBe("pending");
  });

  it("stops at migrateTo and finishes on the next open", async () => {
    const schema = env.schema();
    const old = env.store(schema, { migrateTo: 0 });
    await old.open();
    expect(await old.schemaVersion()).toBe(0);
    const current = env.store(schema);
    await current.open();
    expect(await current.schemaVersion()).toBe(POSTGRES_SCHEMA_VERSION);
  });

  it("refuses a schema written by a newer herald", async () => {
    const schema = env.schema();
    await env.store(schema).open();
    await withClient((c) =>
      c.query(
        `INSERT INTO "${schema}".schema_migrations (version, description) VALUES ($1, 'future')`,
        [POSTGRES_SCHEMA_VERSION + 1],
      ),
    );
    await expect(
      PostgresStateStore.connect({ connectionString: TEST_POSTGRES_URL, schema }),
    ).rejects.toBeInstanceOf(SchemaTooNewError);
  });

  it("keeps stores in different schemas of one database apart", async () => {
    const a = env.store(env.schema());
    const b = env.store(env.schema());
    const input = newIntent();
    await a.enqueueIntents([input]);
    expect(await b.getIntentByIdempotencyKey(input.idempotencyKey)).toBeUndefined();
    expect((await b.enqueueIntents([input]))[0]?.created).toBe(true);
  });

  it("rejects a schema name that would need quoting", () => {
    for (const schema of ["Herald", "a-b", 'x"; DROP TABLE y; --', "", "1abc"]) {
      expect(() => new PostgresStateStore({ connectionString: TEST_POSTGRES_URL, schema })).toThrow(
        TypeError,
      );
    }
  });

  it("maps BIGINT epoch milliseconds to exact numbers and refuses unsafe ones", async () => {
    const schema = env.schema();
    const store = env.store(schema);
    const farFuture = Date.UTC(2500, 0, 1) + 123;
    const [r] = await store.enqueueIntents([newIntent(undefined, { nextAttemptAt: farFuture })]);
    expect((await store.getIntent(r?.intent.id ?? ""))?.nextAttemptAt).toBe(farFuture);
    await withClient((c) =>
      c.query(`UPDATE "${schema}".intents SET next_attempt_at = 9007199254740993`),
    );
    await expect(store.getIntent(r?.intent.id ?? "")).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
