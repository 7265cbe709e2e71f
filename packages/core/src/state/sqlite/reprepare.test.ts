/**
 * No statement of the SQLite store is compiled again each time it runs.
 *
 * SQLite marks a statement for recompilation whenever a parameter whose value the planner
 * read is bound again — a bare `LIMIT ?` / `LIMIT :limit` is one — so such a statement is
 * prepared anew on every run, however often it was cached. The lease query (a `UNION ALL` per
 * status) cost 37 µs instead of 2 µs that way, on every lease. The authorizer callback runs
 * whenever SQLite compiles a statement: here it counts the compilations that happen while a
 * cached statement runs (not inside `prepare` or `exec`), over the whole conformance suite.
 */
import { constants, DatabaseSync, StatementSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMessageRuntime } from "../../runtime.ts";
import { createFakeAdapter, inProcessTransport } from "../../testing/fakeAdapter.ts";
import { FakePlatform } from "../../testing/fakePlatform.ts";
import { outboundMessage } from "../../testing/fixtures.ts";
import { describeStateStoreConformance } from "../../testing/storeConformance.ts";
import { SqliteStateStore } from "./SqliteStateStore.ts";

/** SQL of the cached statements SQLite compiled again while they ran, with counts. */
const recompiled = new Map<string, number>();
let compiling = 0;
let running: string | undefined;
const withAuthorizer = new WeakSet<DatabaseSync>();
const originals = {
  prepare: DatabaseSync.prototype.prepare,
  exec: DatabaseSync.prototype.exec,
  all: StatementSync.prototype.all,
  get: StatementSync.prototype.get,
  run: StatementSync.prototype.run,
};

function watch(db: DatabaseSync): void {
  if (withAuthorizer.has(db)) return;
  withAuthorizer.add(db);
  db.setAuthorizer(() => {
    if (compiling === 0 && running !== undefined) {
      recompiled.set(running, (recompiled.get(running) ?? 0) + 1);
    }
    return constants.SQLITE_OK;
  });
}

beforeAll(() => {
  DatabaseSync.prototype.prepare = function (this: DatabaseSync, ...args) {
    watch(this);
    compiling++;
    try {
      return originals.prepare.apply(this, args);
    } finally {
      compiling--;
    }
  } as typeof originals.prepare;
  DatabaseSync.prototype.exec = function (this: DatabaseSync, ...args) {
    compiling++;
    try {
      return originals.exec.apply(this, args);
    } finally {
      compiling--;
    }
  } as typeof originals.exec;
  for (const name of ["all", "get", "run"] as const) {
    const original = originals[name] as (...a: unknown[]) => unknown;
    (StatementSync.prototype as unknown as Record<string, unknown>)[name] = function (
      this: StatementSync,
      ...args: unknown[]
    ) {
      running = this.sourceSQL;
      try {
        return original.apply(this, args);
      } finally {
        running = undefined;
      }
    };
  }
});

afterAll(() => {
  Object.assign(DatabaseSync.prototype, { prepare: originals.prepare, exec: originals.exec });
  Object.assign(StatementSync.prototype, {
    all: originals.all,
    get: originals.get,
    run: originals.run,
  });
});

describe("statements are compiled once", () => {
  it("the watch sees a bare LIMIT parameter recompile (the detector works)", () => {
    const db = new DatabaseSync(":memory:");
    db.exec("CREATE TABLE t (a INTEGER)");
    const bare = db.prepare("SELECT a FROM t LIMIT ?");
    const cast = db.prepare("SELECT a FROM t LIMIT CAST(? AS INTEGER)");
    for (let i = 0; i < 3; i++) bare.all(5);
    for (let i = 0; i < 3; i++) cast.all(5);
    expect(recompiled.get("SELECT a FROM t LIMIT ?")).toBeGreaterThanOrEqual(3);
    expect(recompiled.has("SELECT a FROM t LIMIT CAST(? AS INTEGER)")).toBe(false);
    recompiled.clear();
    db.close();
  });
});

describeStateStoreConformance({
  name: "sqlite (memory), watched for recompiled statements",
  create: async () => new SqliteStateStore({ path: ":memory:" }),
});

describe("the runtime's own calls", () => {
  it("sends, one chat's messages in order and several chats at once, on a group-commit store", async () => {
    const platform = new FakePlatform({ idempotent: true });
    const store = new SqliteStateStore({ path: ":memory:" });
    const runtime = createMessageRuntime({
      store,
      adapters: [createFakeAdapter({ transport: inProcessTransport(platform), idempotent: true })],
    });
    await runtime.start();
    const sends = Array.from({ length: 30 }, (_, i) =>
      runtime.send(outboundMessage(`m${i}`, { target: { id: `c${i % 3}` } })),
    );
    await Promise.all(sends);
    await runtime.send(outboundMessage("one more", { target: { id: "c0" } }));
    await runtime.stop();
    await store.close();
    expect(platform.messages).toHaveLength(31);
  });
});

describe("after the whole conformance suite and the runtime's calls", () => {
  it("no statement of the store was compiled again while it ran", () => {
    expect(Object.fromEntries(recompiled)).toEqual({});
  });
});
