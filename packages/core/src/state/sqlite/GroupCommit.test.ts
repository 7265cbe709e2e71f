/**
 * [H19] item 1: group commit in the SQLite store — the writes of one tick share one
 * transaction, nothing settles before COMMIT, a failing member fails alone, a failed COMMIT
 * fails every member and applies nothing. (Durability across SIGKILL: the store conformance
 * crash tests, scenario "group-commit-then-die".)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it, vi } from "vitest";
import { newIntent, outboundMessage } from "../../testing/fixtures.ts";
import { IntentConflictError, StoreUnavailableError } from "../errors.ts";
import { defaultGroupBudgetMs, GroupCommit } from "./GroupCommit.ts";
import { SqliteStateStore } from "./SqliteStateStore.ts";

const dir = mkdtempSync(join(tmpdir(), "herald-group-commit-"));
let n = 0;
const freshPath = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SqliteStateStore group commit", () => {
  it("commits the writes called in one tick in one transaction", async () => {
    // No time budget: a loaded machine must not split the group.
    const store = new SqliteStateStore({ path: freshPath(), groupCommit: { maxGroupMs: 60_000 } });
    const before = store.groupCommitStats;
    await Promise.all(Array.from({ length: 20 }, () => store.enqueueIntents([newIntent()])));
    const after = store.groupCommitStats;
    expect(after.groups - before.groups).toBe(1);
    expect(after.members - before.members).toBe(20);
    expect((await store.countIntents()).pending).toBe(20);
    await store.close();
  });

  it("runs members in call order: a later write sees an earlier one, seq follows the calls", async () => {
    const store = new SqliteStateStore({ path: freshPath(), groupCommit: {} });
    const id = "group-order-1";
    const message = outboundMessage("first", { target: { id: "ordered" } });
    const [enqueued, cancelled, second] = await Promise.all([
      store.enqueueIntents([newIntent(message, { id })]),
      store.transitionIntents([{ id, from: "pending", to: "cancelled" }]),
      store.enqueueIntents([newIntent(outboundMessage("second", { target: { id: "ordered" } }))]),
    ]);
    expect(enqueued[0]?.created).toBe(true);
    expect(cancelled[0]?.status).toBe("cancelled");
    expect(second[0]?.intent.seq).toBeGreaterThan(enqueued[0]?.intent.seq ?? Infinity);
    await store.close();
  });

  it("settles a member only after COMMIT: another connection already sees its row", async () => {
    const path = freshPath();
    const store = new SqliteStateStore({ path, groupCommit: {} });
    const reader = new DatabaseSync(path);
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store
          .enqueueIntents([newIntent(outboundMessage(`d${i}`), { idempotencyKey: `durable-${i}` })])
          .then(() => {
            const row = reader
              .prepare("SELECT COUNT(*) AS c FROM intents WHERE idempotency_key = ?")
              .get(`durable-${i}`) as { c: number };
            seen.push(row.c);
          }),
      ),
    );
    expect(seen).toEqual(Array(10).fill(1));
    reader.close();
    await store.close();
  });

  it("fails only the member whose statement hits a constraint; the others commit", async () => {
    const store = new SqliteStateStore({ path: freshPath(), groupCommit: {} });
    await store.enqueueIntents([newIntent(outboundMessage("taken"), { id: "dup-id" })]);
    const results = await Promise.allSettled([
      store.enqueueIntents([newIntent(outboundMessage("a"), { idempotencyKey: "ok-a" })]),
      // Another idempotency key with an id already used: the primary key rejects it.
      store.enqueueIntents([
        newIntent(outboundMessage("b"), { id: "dup-id", idempotencyKey: "bad" }),
      ]),
      store.transitionIntents([{ id: "dup-id", from: "sending", to: "committing" }]),
      store.enqueueIntents([newIntent(outboundMessage("c"), { idempotencyKey: "ok-c" })]),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
    ]);
    const constraint = (results[1] as PromiseRejectedResult).reason as Error;
    expect(constraint).toBeInstanceOf(StoreUnavailableError);
    expect(constraint.message).toMatch(/enqueueIntents: .*UNIQUE constraint failed: intents\.id/);
    expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(IntentConflictError);
    expect(await store.getIntentByIdempotencyKey("ok-a")).toBeDefined();
    expect(await store.getIntentByIdempotencyKey("ok-c")).toBeDefined();
    expect(await store.getIntentByIdempotencyKey("bad")).toBeUndefined();
    await store.close();
  });

  it("bounds a group and carries the rest into the next one, in order", async () => {
    const store = new SqliteStateStore({
      path: freshPath(),
      groupCommit: { maxMembers: 3, maxGroupMs: 60_000 },
    });
    const before = store.groupCommitStats;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.enqueueIntents([newIntent(outboundMessage(`b${i}`, { target: { id: "one" } }))]),
      ),
    );
    expect(store.groupCommitStats.groups - before.groups).toBe(4);
    const seqs = results.map((r) => r[0]?.intent.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    await store.close();
  });

  it("keeps committing when a test suite fakes the global timers", async () => {
    const store = new SqliteStateStore({ path: freshPath(), groupCommit: {} });
    vi.useFakeTimers();
    try {
      await expect(store.enqueueIntents([newIntent()])).resolves.toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
    await store.close();
  });

  it("runs each write as its own transaction with groupCommit: false", async () => {
    const store = new SqliteStateStore({ path: freshPath(), groupCommit: false });
    await Promise.all(Array.from({ length: 5 }, () => store.enqueueIntents([newIntent()])));
    expect(store.groupCommitStats).toEqual({ groups: 0, members: 0 });
    expect((await store.countIntents()).pending).toBe(5);
    await store.close();
  });

  it("lets close() finish the writes already called, and refuses later ones", async () => {
    const path = freshPath();
    const store = new SqliteStateStore({ path, groupCommit: {} });
    const pending = store.enqueueIntents([
      newIntent(outboundMessage("late"), { idempotencyKey: "late" }),
    ]);
    await store.close();
    await expect(pending).resolves.toHaveLength(1);
    await expect(store.enqueueIntents([newIntent()])).rejects.toBeInstanceOf(StoreUnavailableError);
    const reopened = new SqliteStateStore({ path, groupCommit: {} });
    expect(await reopened.getIntentByIdempotencyKey("late")).toBeDefined();
    await reopened.close();
  });
});

describe("the default work budget of a group", () => {
  it("is twice the recent COMMIT time, between 2 and 4 ms", () => {
    expect(defaultGroupBudgetMs(0.2)).toBe(2); // a fast fsync: short groups, the loop held less
    expect(defaultGroupBudgetMs(1.5)).toBe(3);
    expect(defaultGroupBudgetMs(9)).toBe(4); // a slow disk: at most 4 ms of work
  });

  it("follows the commits of the store: a slow COMMIT lets the next group take more members", async () => {
    const d = new DatabaseSync(freshPath());
    d.exec("CREATE TABLE t (v INTEGER)");
    let commitMs = 0;
    // A virtual clock the work advances: on a busy machine a busy-wait is preempted, and the
    // preempted time would count as work (the groups then split by time, not by budget).
    let clock = 0;
    const busy = (ms: number) => {
      clock += ms;
    };
    const slowCommits = {
      exec(sql: string) {
        if (sql === "COMMIT") busy(commitMs);
        d.exec(sql);
      },
      get isTransaction() {
        return d.isTransaction;
      },
    };
    const group = new GroupCommit(slowCommits, {
      busyTimeoutMs: 100,
      closed: () => false,
      now: () => clock,
    });
    // Members of 0.5 ms each, queued at once: a group takes as many as its budget allows.
    const burst = async () => {
      const before = { ...group.stats };
      await Promise.all(
        Array.from({ length: 40 }, () =>
          group.run("write", () => {
            busy(0.5);
            d.prepare("INSERT INTO t (v) VALUES (1)").run();
          }),
        ),
      );
      return (group.stats.members - before.members) / (group.stats.groups - before.groups);
    };
    const fast = await burst();
    commitMs = 5; // a slow disk: the moving average climbs past 2 ms within a few commits
    await burst();
    const slow = await burst();
    expect(slow).toBeGreaterThan(fast);
    d.close();
  });
});

describe("GroupCommit on a failing COMMIT", () => {
  function db() {
    const d = new DatabaseSync(freshPath());
    d.exec("PRAGMA foreign_keys = ON");
    d.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
      CREATE TABLE child (id INTEGER PRIMARY KEY,
        parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)`);
    return d;
  }
  const count = (d: DatabaseSync, table: string) =>
    (d.prepare(`SELECT COUNT(*) AS c FROM ${table}`).get() as { c: number }).c;

  it("fails every member with StoreUnavailableError and applies nothing", async () => {
    const d = db();
    // One group whatever the machine's load (no time budget splits it).
    const group = new GroupCommit(d, {
      busyTimeoutMs: 100,
      closed: () => false,
      maxGroupMs: 60_000,
    });
    // A deferred foreign key is checked at COMMIT: the last member makes the COMMIT fail.
    const results = await Promise.allSettled([
      group.run("first", () => d.prepare("INSERT INTO parent (id) VALUES (1)").run()),
      group.run("second", () => d.prepare("INSERT INTO child (id, parent) VALUES (1, 1)").run()),
      group.run("orphan", () => d.prepare("INSERT INTO child (id, parent) VALUES (2, 99)").run()),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    const reasons = results.map((r) => (r as PromiseRejectedResult).reason as Error);
    for (const reason of reasons) expect(reason).toBeInstanceOf(StoreUnavailableError);
    expect(reasons.map((r) => r.message.split(":")[0])).toEqual([
      "state store unavailable during first",
      "state store unavailable during second",
      "state store unavailable during orphan",
    ]);
    expect(reasons[0]?.message).toMatch(/FOREIGN KEY constraint failed/);
    expect([count(d, "parent"), count(d, "child")]).toEqual([0, 0]);
    expect(d.isTransaction).toBe(false);
    // The connection is usable again: the next group commits.
    await group.run("after", () => d.prepare("INSERT INTO parent (id) VALUES (2)").run());
    expect(count(d, "parent")).toBe(1);
    d.close();
  });

  it("isolates a member that fills the database; the others commit", async () => {
    const d = db();
    // One group whatever the machine's load (no time budget splits it).
    const group = new GroupCommit(d, {
      busyTimeoutMs: 100,
      closed: () => false,
      maxGroupMs: 60_000,
    });
    const pages = (d.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
    d.exec(`PRAGMA max_page_count = ${pages + 1}`);
    const big = "x".repeat(64 * 1024);
    const results = await Promise.allSettled([
      group.run("small", () => d.prepare("INSERT INTO parent (id) VALUES (1)").run()),
      group.run("huge", () =>
        d.prepare("CREATE TABLE blob AS SELECT ? AS b UNION ALL SELECT ?").run(big, big),
      ),
      group.run("later", () => d.prepare("INSERT INTO parent (id) VALUES (3)").run()),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const full = (results[1] as PromiseRejectedResult).reason as Error;
    expect(full).toBeInstanceOf(StoreUnavailableError);
    expect(full.message).toMatch(/during huge: database or disk is full/);
    expect(count(d, "parent")).toBe(2);
    d.close();
  });
});
