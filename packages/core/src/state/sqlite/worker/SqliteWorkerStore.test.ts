import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { resetFailpoints } from "../../../failpoint.ts";
import type { HeraldLogger } from "../../../logger.ts";
import { IllegalTransitionError } from "../../../message/intent.ts";
import { newIntent } from "../../../testing/fixtures.ts";
import { describeStateStoreConformance } from "../../../testing/storeConformance.ts";
import { scaledMs } from "../../../testing/timeScale.ts";
import {
  IntentConflictError,
  SchemaTooNewError,
  StoreFailedError,
  StoreUnavailableError,
} from "../../errors.ts";
import type { MessageStateStore } from "../../MessageStateStore.ts";
import { SQLITE_SCHEMA_VERSION } from "../migrations.ts";
import { SqliteStateStore } from "../SqliteStateStore.ts";
import { openSqliteStateStore } from "./SqliteWorkerStore.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-sqlite-worker-"));
let n = 0;
const freshPath = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStateStoreConformance({
  name: "sqlite in a worker thread (file)",
  create: () => openSqliteStateStore({ path: freshPath() }),
  crash: {
    storeModule: new URL("../../../testing/sqliteWorkerStoreModule.ts", import.meta.url).href,
    location: async () => freshPath(),
    open: (location) => openSqliteStateStore({ path: location }),
  },
});

describe("SqliteWorkerStore specifics", () => {
  afterEach(() => {
    delete process.env.HERALD_FAILPOINTS;
    resetFailpoints();
  });

  it("delivers typed errors as the same classes, fields and messages as the in-thread store", async () => {
    const path = freshPath();
    const inThread = new SqliteStateStore({ path: freshPath() });
    const worker = await openSqliteStateStore({ path });
    const errors = async (store: MessageStateStore) => {
      const [created] = await store.enqueueIntents([newIntent()]);
      const intent = { id: created?.intent.id ?? "" };
      const conflict = await store
        .transitionIntents([{ id: intent.id, from: "sending", to: "pending" }])
        .catch((e: unknown) => e);
      const illegal = await store
        .transitionIntents([{ id: intent.id, from: "pending", to: "sent" }])
        .catch((e: unknown) => e);
      return { conflict, illegal, id: intent.id };
    };
    const local = await errors(inThread);
    const remote = await errors(worker);
    expect(remote.conflict).toBeInstanceOf(IntentConflictError);
    const c = remote.conflict as IntentConflictError;
    expect(c.intentId).toBe(remote.id);
    expect(c.expected).toEqual({ status: "sending" });
    expect(c.actual).toEqual({ status: "pending" });
    expect(c.code).toBe("HERALD_INTENT_CONFLICT");
    expect(c.name).toBe("IntentConflictError");
    expect(c.message).toBe((local.conflict as Error).message.replace(local.id, remote.id));
    expect(remote.illegal).toBeInstanceOf(IllegalTransitionError);
    expect((remote.illegal as IllegalTransitionError).from).toBe("pending");
    expect((remote.illegal as IllegalTransitionError).to).toBe("sent");
    expect((remote.illegal as Error).message).toBe((local.illegal as Error).message);
    await inThread.close();
    await worker.close();
  });

  it("throws open errors at open: a newer schema, a file that cannot be opened", async () => {
    const path = freshPath();
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    db.close();
    const tooNew = await openSqliteStateStore({ path }).catch((e: unknown) => e);
    expect(tooNew).toBeInstanceOf(SchemaTooNewError);
    expect((tooNew as SchemaTooNewError).code).toBe("HERALD_SCHEMA_TOO_NEW");
    const missingDir = await openSqliteStateStore({ path: join(dir, "no", "such", "x.db") }).catch(
      (e: unknown) => e,
    );
    expect(missingDir).toBeInstanceOf(StoreUnavailableError);
    expect((missingDir as Error).message).toContain("open");
  });

  it("puts the writes of one tick into one transaction, and resolves only after COMMIT", async () => {
    const path = freshPath();
    // A group's time budget generous enough that a loaded machine does not split it.
    const store = await openSqliteStateStore({ path, groupCommit: { maxGroupMs: 10_000 } });
    const before = store.groupCommitStats;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.enqueueIntents([newIntent(undefined, { idempotencyKey: `k${i}` })]),
      ),
    );
    const after = store.groupCommitStats;
    expect(after.members - before.members).toBe(40);
    expect(after.groups - before.groups).toBe(1);
    // Resolved means committed: another connection sees every row.
    const other = new DatabaseSync(path);
    expect(other.prepare("SELECT count(*) AS n FROM intents").get()).toEqual({ n: 40 });
    other.close();
    await store.close();
  });

  it("close() lets the calls already made commit, then rejects later calls", async () => {
    const path = freshPath();
    const store = await openSqliteStateStore({ path });
    const writes = Array.from({ length: 10 }, (_, i) =>
      store.enqueueIntents([newIntent(undefined, { idempotencyKey: `c${i}` })]),
    );
    await store.close();
    await Promise.all(writes);
    const late = await store.countIntents().catch((e: unknown) => e);
    expect(late).toBeInstanceOf(StoreUnavailableError);
    const reopened = await openSqliteStateStore({ path });
    expect((await reopened.countIntents()).pending).toBe(10);
    await reopened.close();
  });

  it("fails the calls in flight when the worker dies, then serves later calls from a new worker", async () => {
    // The 2nd message the worker gets throws uncaught: the thread dies the way a bug would. The
    // worker copies the environment when it starts, so the replacement is not armed.
    process.env.HERALD_FAILPOINTS = "store.worker_message=throw@2";
    const store = await openSqliteStateStore({ path: freshPath() });
    delete process.env.HERALD_FAILPOINTS;
    await store.enqueueIntents([newIntent(undefined, { idempotencyKey: "before" })]);
    const pending = await Promise.allSettled([
      store.enqueueIntents([newIntent()]),
      store.countIntents(),
    ]);
    for (const p of pending) {
      expect(p.status).toBe("rejected");
      expect((p as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    }
    // While the new worker opens, calls fail fast (a webhook answers 503, nothing hangs).
    const during = await store.getIntent("x").catch((e: unknown) => e);
    expect(during).toBeInstanceOf(StoreUnavailableError);
    expect((during as Error).message).toContain("getIntent");
    await expect.poll(() => store.workerRestarts, { timeout: scaledMs(10_000) }).toBe(1);
    const before = await store.getIntentByIdempotencyKey("before");
    expect(before?.status).toBe("pending");
    await store.enqueueIntents([newIntent(undefined, { idempotencyKey: "after" })]);
    expect((await store.getIntentByIdempotencyKey("after"))?.status).toBe("pending");
    await store.close();
    const closed = await store.countIntents().catch((e: unknown) => e);
    expect(closed).toBeInstanceOf(StoreUnavailableError);
  });

  it("close() during a restart ends it: nothing is left running, later calls reject", async () => {
    process.env.HERALD_FAILPOINTS = "store.worker_message=throw@1";
    const store = await openSqliteStateStore({ path: freshPath() });
    delete process.env.HERALD_FAILPOINTS;
    await expect(store.countIntents()).rejects.toBeInstanceOf(StoreUnavailableError);
    await store.close();
    expect(store.workerRestarts).toBe(0);
    await expect(store.countIntents()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it("gives up on a crash loop: failed for good, with a typed error on every call and one log line", async () => {
    const lines: string[] = [];
    const logger: HeraldLogger = {
      debug() {},
      info() {},
      warn() {},
      error(_obj, msg) {
        lines.push(msg ?? "");
      },
      child: () => logger,
    };
    const path = freshPath();
    // The 2nd message kills the worker; every replacement then fails to open (a directory
    // stands where the database file was).
    process.env.HERALD_FAILPOINTS = "store.worker_message=throw@2";
    const store = await openSqliteStateStore({
      path,
      crashLoop: { maxCrashes: 3, windowMs: 60_000 },
      logger,
    });
    delete process.env.HERALD_FAILPOINTS;
    await store.countIntents();
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
    mkdirSync(path);
    await expect(store.countIntents()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.failure).toBeUndefined();
    // The death and two failed restarts (100 ms and 300 ms later): three crashes.
    await expect
      .poll(() => store.failure, { timeout: scaledMs(10_000) })
      .toBeInstanceOf(StoreFailedError);
    const error = await store.getIntent("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreFailedError);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ code: "HERALD_STORE_FAILED", crashes: 3, windowMs: 60_000 });
    expect((error as Error).message).toContain("getIntent");
    expect((error as Error).message).toContain("crashed 3 times within 60000 ms");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("no longer restarting");
    // Nothing restarts it any more, even once the database could be opened again.
    rmSync(path, { recursive: true });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(store.workerRestarts).toBe(0);
    await expect(store.countIntents()).rejects.toBeInstanceOf(StoreFailedError);
    await store.close();
    await expect(store.countIntents()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it("crashes spread wider than the window are not a loop: the worker comes back", async () => {
    const path = freshPath();
    process.env.HERALD_FAILPOINTS = "store.worker_message=throw@2";
    // The first restart is tried at once, so the death and its failure may be 1 ms apart; the
    // later tries wait 100, 200, 400 ms first, so no three crashes ever fall within 90 ms.
    const store = await openSqliteStateStore({ path, crashLoop: { maxCrashes: 3, windowMs: 90 } });
    delete process.env.HERALD_FAILPOINTS;
    await store.countIntents();
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
    mkdirSync(path);
    await expect(store.countIntents()).rejects.toBeInstanceOf(StoreUnavailableError);
    // Failed restarts at once, then about 100, 300 and 700 ms after the death.
    await new Promise((r) => setTimeout(r, 800));
    expect(store.failure).toBeUndefined();
    rmSync(path, { recursive: true });
    await expect.poll(() => store.workerRestarts, { timeout: scaledMs(10_000) }).toBe(1);
    expect(store.failure).toBeUndefined();
    expect((await store.countIntents()).pending).toBe(0);
    await store.close();
  });

  it("runs a private :memory: database inside the worker", async () => {
    const store = await openSqliteStateStore({ path: ":memory:" });
    await store.enqueueIntents([newIntent()]);
    expect((await store.countIntents()).pending).toBe(1);
    await store.close();
  });
});
