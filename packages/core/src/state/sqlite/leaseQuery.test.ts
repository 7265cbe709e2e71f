import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import type { DurableSendIntent } from "../../message/intent.ts";
import { newIntent, outboundMessage, textReceipt } from "../../testing/fixtures.ts";
import { listSql } from "./IntentTables.ts";
import { headsSql, leaseScanCap, leaseSql } from "./leaseQuery.ts";
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
          .all({ now: 0, channel: null, cap: 64 }) as { detail: string }[]
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

  it("finds the heads of the ordering keys one key at a time through intents_unsent_by_key", () => {
    const db = new DatabaseSync(":memory:");
    for (const m of SQLITE_MIGRATIONS) db.exec(m.sql);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${headsSql}`).all() as { detail: string }[]).map(
      (r) => r.detail,
    );
    // The first key (a walk that stops at its first entry), each next key, each key's head.
    expect(plan).toContain("SCAN intents USING INDEX intents_unsent_by_key");
    expect(plan).toContain("SEARCH intents USING INDEX intents_unsent_by_key (ordering_key>?)");
    expect(plan).toContain("SEARCH intents USING INDEX intents_unsent_by_key (ordering_key=?)");
    expect(plan.some((d) => d.includes("intents_due") || d.includes("TEMP B-TREE"))).toBe(false);
    db.close();
  });

  it("past chats that are busy, takes the heads of the others within its cap of candidates", async () => {
    let now = 1_000;
    const store = new SqliteStateStore({ path: ":memory:", clock: () => now });
    const text = (i: DurableSendIntent) => (i.message.body as { markdown: string }).markdown;
    // 2,800 messages of four chats first, then one message in each of four other chats.
    for (let from = 0; from < 2_800; from += 700) {
      await store.enqueueIntents(
        Array.from({ length: 700 }, (_, i) =>
          newIntent(outboundMessage(`m${from + i}`, { target: { id: `busy${(from + i) % 4}` } })),
        ),
      );
      now += 1;
    }
    await store.enqueueIntents(
      ["a", "b", "c", "d"].map((id) => newIntent(outboundMessage(id, { target: { id } }))),
    );
    now += 1;
    const first = await store.leaseDueIntents({ owner: "w", now, leaseMs: 30_000, limit: 16 });
    // The 64 candidates hold the four busy heads; the other four come from the heads of the keys.
    expect(leaseScanCap(16)).toBe(64);
    expect(first.map(text)).toEqual(["m0", "m1", "m2", "m3", "a", "b", "c", "d"]);
    expect(await store.leaseDueIntents({ owner: "w", now, leaseMs: 30_000, limit: 16 })).toEqual(
      [],
    );
    // A busy chat's message sent: its next one is leased, nothing else.
    const m0 = first[0]?.id ?? "";
    await store.transitionIntents([
      { id: m0, from: "pending", to: "sending", owner: "w", patch: { attempt: 1 } },
    ]);
    await store.transitionIntents([
      {
        id: m0,
        from: "sending",
        to: "committing",
        owner: "w",
        patch: { receipt: textReceipt(["r"]) },
      },
      { id: m0, from: "committing", to: "sent", owner: "w", patch: {} },
    ]);
    const next = await store.leaseDueIntents({ owner: "w", now, leaseMs: 30_000, limit: 16 });
    expect(next.map(text)).toEqual(["m4"]);
    // Under the cap nothing changes: a limit of 1 takes the oldest head only.
    now += 60_000;
    const one = await store.leaseDueIntents({ owner: "w", now, leaseMs: 30_000, limit: 1 });
    expect(one.map(text)).toEqual(["m1"]);
    await store.close();
  });

  it("leases a key's head that is due after the rest of its backlog (a retry)", async () => {
    let now = 1_000;
    const store = new SqliteStateStore({ path: ":memory:", clock: () => now });
    const [a1, a2] = await store.enqueueIntents([
      newIntent(outboundMessage("a1", { target: { id: "a" } })),
      newIntent(outboundMessage("a2", { target: { id: "a" } })),
    ]);
    const id = a1?.intent.id ?? "";
    const [leased] = await store.leaseDueIntents({ owner: "w", now, leaseMs: 1_000, limit: 1 });
    expect(leased?.id).toBe(id);
    // a1 goes back to the queue with a retry due later than a2 became due.
    await store.updateIntent(
      id,
      { status: "pending", owner: "w" },
      { nextAttemptAt: now + 500, lease: "release" },
    );
    now += 1_000;
    const next = await store.leaseDueIntents({ owner: "w", now, leaseMs: 1_000, limit: 10 });
    // Walked in due order a2 comes first, and is behind a1: a1 is leased, a2 is not.
    expect(next.map((i) => i.id)).toEqual([id]);
    expect(a2?.intent.id).not.toBe(id);
    await store.close();
  });
});
