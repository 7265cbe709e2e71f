import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { newIntent } from "../../testing/fixtures.ts";
import { describeStateStoreConformance } from "../../testing/storeConformance.ts";
import { SchemaTooNewError } from "../errors.ts";
import { SQLITE_SCHEMA_VERSION } from "./migrations.ts";
import { SqliteStateStore } from "./SqliteStateStore.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-sqlite-"));
let n = 0;
const freshPath = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Both write modes: one transaction per write in memory, group commit (the default) on files.
describeStateStoreConformance({
  name: "sqlite (memory, groupCommit: false)",
  create: async () => new SqliteStateStore({ path: ":memory:", groupCommit: false }),
});

describeStateStoreConformance({
  name: "sqlite (file)",
  create: async () => new SqliteStateStore({ path: freshPath() }),
  crash: {
    storeModule: new URL("../../testing/sqliteStoreModule.ts", import.meta.url).href,
    location: async () => freshPath(),
    open: async (location) => new SqliteStateStore({ path: location }),
  },
});

describe("SqliteStateStore specifics", () => {
  it("migrates an older file forward and keeps its rows", async () => {
    const path = freshPath();
    const old = new SqliteStateStore({ path, migrateTo: 1 });
    expect(await old.schemaVersion()).toBe(1);
    await old.close();
    // Write a v1 row by hand: v1 has no due_at column.
    const db = new DatabaseSync(path);
    db.prepare(
      `INSERT INTO intents (id, seq, idempotency_key, channel, ordering_key, status, message_json, operation_json, created_at, updated_at)
       VALUES ('old', 1, 'k-old', 'qa', 'o', 'pending', ?, '{"kind":"send"}', 5, 5)`,
    ).run(JSON.stringify(newIntent().message));
    db.close();
    const store = new SqliteStateStore({ path });
    expect(await store.schemaVersion()).toBe(SQLITE_SCHEMA_VERSION);
    const [leased] = await store.leaseDueIntents({ owner: "w", now: 10, leaseMs: 100, limit: 1 });
    expect(leased?.id).toBe("old");
    expect(leased?.firstDispatchAt).toBeUndefined(); // v3 column, NULL on old rows
    await store.close();
  });

  it("refuses a file written by a newer schema", () => {
    const path = freshPath();
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => new SqliteStateStore({ path })).toThrow(SchemaTooNewError);
  });

  it("uses WAL and durable commits by default, NORMAL when configured", async () => {
    const path = freshPath();
    const durable = new SqliteStateStore({ path });
    await durable.close();
    const db = new DatabaseSync(path);
    expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    db.close();
    const fast = new SqliteStateStore({ path, synchronous: "NORMAL" });
    await fast.enqueueIntents([newIntent()]);
    await fast.close();
  });
});
