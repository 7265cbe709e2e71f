import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { newIntent, outboundMessage } from "../../testing/fixtures.ts";
import { leaseSql, listSql } from "./IntentTables.ts";
import { SQLITE_MIGRATIONS } from "./migrations.ts";
import { SqliteStateStore } from "./SqliteStateStore.ts";

describe("the SQLite lease query", () => {
  it("walks the due index per status (no table scan, no sort) with one status or several", () => {
    const db = new DatabaseSync(":memory:");
    for (const m of SQLITE_MIGRATIONS) db.exec(m.sql);
    for (const statuses of [["pending"], ["pending", "unknown_after_send"]] as const) {
      const plan = (
        db
          .prepare(`EXPLAIN QUERY PLAN ${leaseSql(statuses)}`)
          .all({ now: 0, channel: null, limit: 8 }) as { detail: string }[]
      ).map((r) => r.detail);
      expect(plan.filter((d) => d.startsWith("SEARCH i USING INDEX intents_due"))).toHaveLength(
        statuses.length,
      );
      expect(plan.some((d) => /^SCAN i\b/.test(d) || d.includes("TEMP B-TREE"))).toBe(false);
    }
    db.close();
  });

  it("finds the last seconds' writes from the indexes (no walk through the sent history)", () => {
    const db = new DatabaseSync(":memory:");
    for (const m of SQLITE_MIGRATIONS) db.exec(m.sql);
    const { sql, params } = listSql({
      statuses: ["sent", "committing", "sending", "unknown_after_send"],
      updatedAfter: 1_000,
      limit: 2_000,
    });
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map(
      (r) => r.detail,
    );
    // The sent branch walks the terminal index from the bound; each unsent status its own few.
    expect(plan).toContain("SEARCH intents USING INDEX intents_terminal_updated (updated_at>?)");
    expect(
      plan.filter((d) => d.startsWith("SEARCH intents USING INDEX intents_status_seq")),
    ).toHaveLength(3);
    expect(plan.some((d) => /^SCAN intents\b/.test(d))).toBe(false);
    db.close();
  });

  it("leases across statuses oldest due first, first in each ordering key only", async () => {
    let now = 1_000;
    const store = new SqliteStateStore({ path: ":memory:", clock: () => now });
    const owner = "w";
    const enqueue = async (text: string, chat: string) => {
      const [r] = await store.enqueueIntents([
        newIntent(outboundMessage(text, { target: { id: chat } })),
      ]);
      now += 1;
      return r?.intent.id as string;
    };
    const a1 = await enqueue("a1", "a");
    await enqueue("a2", "a"); // behind a1
    const b1 = await enqueue("b1", "b");
    const c1 = await enqueue("c1", "c");
    // b1 becomes unknown_after_send (still first in chat b); a1 and c1 go back to the queue.
    const first = await store.leaseDueIntents({ owner, now, leaseMs: 1_000, limit: 10 });
    expect(first.map((i) => i.id)).toEqual([a1, b1, c1]);
    await store.transitionIntents([{ id: b1, owner, from: "pending", to: "sending" }]);
    await store.transitionIntents([
      { id: b1, owner, from: "sending", to: "unknown_after_send", patch: { lease: "release" } },
    ]);
    for (const id of [a1, c1]) expect(await store.releaseLease(id, owner)).toBe(true);
    expect((await store.leaseDueIntents({ owner, now, leaseMs: 1, limit: 10 })).length).toBe(2);
    now += 1_000; // every lease above expired
    const leased = await store.leaseDueIntents({
      owner,
      now,
      leaseMs: 1_000,
      limit: 10,
      statuses: ["pending", "unknown_after_send"],
    });
    expect(leased.map((i) => i.id)).toEqual([a1, b1, c1]);
    expect(leased.map((i) => i.status)).toEqual(["pending", "unknown_after_send", "pending"]);
    expect(
      await store.leaseDueIntents({ owner, now, leaseMs: 1, limit: 10, statuses: [] }),
    ).toEqual([]);
    await store.close();
  });
});
