import type { MessageStateStore } from "@herald/core";
import { newIntent, outboundMessage } from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { PostgresStateStore } from "./PostgresStateStore.ts";
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

/** Several stores on one fresh schema: each its own pool, like separate gateway processes. */
async function processes(count: number, poolMax = 4): Promise<PostgresStateStore[]> {
  const schema = env.schema();
  const stores = Array.from({ length: count }, () => env.store(schema, { pool: { max: poolMax } }));
  await Promise.all(stores.map((s) => s.open()));
  return stores;
}

const chat = (id: string, text: string) => outboundMessage(text, { target: { id } });

/**
 * A delivery loop over one store: lease, `sending`, record, `committing`, `sent`. Asserts at
 * lease time that no other intent of the same ordering key is between its lease and the moment
 * its `sent` transition was issued — the store must not have let it out.
 */
function drain(
  store: MessageStateStore,
  owner: string,
  state: {
    expected: number;
    inFlight: Map<string, string>;
    leasedIds: Set<string>;
    delivered: Map<string, number[]>;
    violations: string[];
    done: () => boolean;
  },
) {
  return (async () => {
    while (!state.done()) {
      const leased = await store.leaseDueIntents({
        owner,
        now: Date.now(),
        leaseMs: 60_000,
        limit: 3,
      });
      if (leased.length === 0) {
        await new Promise((r) => setTimeout(r, 2));
        continue;
      }
      for (const l of leased) {
        const holder = state.inFlight.get(l.orderingKey);
        if (holder) state.violations.push(`${l.id} leased while ${holder} in flight`);
        if (state.leasedIds.has(l.id)) state.violations.push(`${l.id} leased twice`);
        state.leasedIds.add(l.id);
        state.inFlight.set(l.orderingKey, l.id);
      }
      for (const l of leased) {
        await store.transitionIntents([{ id: l.id, from: "pending", to: "sending", owner }]);
        const seqs = state.delivered.get(l.orderingKey) ?? [];
        seqs.push(l.seq);
        state.delivered.set(l.orderingKey, seqs);
        await store.transitionIntents([{ id: l.id, from: "sending", to: "committing", owner }]);
        state.inFlight.delete(l.orderingKey);
        await store.transitionIntents([{ id: l.id, from: "committing", to: "sent", owner }]);
      }
    }
  })();
}

function newDrainState(expected: number) {
  const delivered = new Map<string, number[]>();
  return {
    expected,
    inFlight: new Map<string, string>(),
    leasedIds: new Set<string>(),
    delivered,
    violations: [] as string[],
    done: () => [...delivered.values()].reduce((n, s) => n + s.length, 0) >= expected,
  };
}

function expectFifo(delivered: Map<string, number[]>) {
  for (const seqs of delivered.values()) expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}

describe.skipIf(!available)("PostgresStateStore across processes", () => {
  it("never gives one intent to two processes and keeps per-key FIFO while both lease", async () => {
    const [a, b] = await processes(2);
    if (!a || !b) throw new Error("stores missing");
    const keys = 6;
    const perKey = 20;
    await a.enqueueIntents(
      Array.from({ length: keys * perKey }, (_, i) => newIntent(chat(`k${i % keys}`, `${i}`))),
    );
    const state = newDrainState(keys * perKey);
    await Promise.all([
      drain(a, "a1", state),
      drain(a, "a2", state),
      drain(b, "b1", state),
      drain(b, "b2", state),
    ]);
    expect(state.violations).toEqual([]);
    expect(state.leasedIds.size).toBe(keys * perKey);
    expect([...state.delivered.values()].map((s) => s.length)).toEqual(Array(keys).fill(perKey));
    expectFifo(state.delivered);
  });

  it("delivers one key in seq order while several processes enqueue to it and others lease", async () => {
    const [e1, e2, l1, l2] = await processes(4);
    if (!e1 || !e2 || !l1 || !l2) throw new Error("stores missing");
    const perEnqueuer = 40;
    const state = newDrainState(2 * perEnqueuer);
    const enqueue = async (store: MessageStateStore, name: string) => {
      // Four concurrent single-intent enqueues at a time per process, all on one ordering key.
      for (let i = 0; i < perEnqueuer; i += 4) {
        await Promise.all(
          [0, 1, 2, 3].map((j) =>
            store.enqueueIntents([newIntent(chat("hot", `${name}${i + j}`))]),
          ),
        );
      }
    };
    await Promise.all([
      enqueue(e1, "x"),
      enqueue(e2, "y"),
      drain(l1, "l1", state),
      drain(l2, "l2", state),
    ]);
    expect(state.violations).toEqual([]);
    expect(state.delivered.get(JSON.stringify(["qa", "bot-1", "hot", ""]))).toHaveLength(
      2 * perEnqueuer,
    );
    expectFifo(state.delivered);
  });

  it("makes a later enqueue on a key wait for an earlier uncommitted one (seq order is commit order)", async () => {
    const schema = env.schema();
    const a = env.store(schema, { applicationName: `${schema}_a` });
    const b = env.store(schema);
    const leaser = env.store(schema);
    await Promise.all([a.open(), b.open(), leaser.open()]);
    const lease = () =>
      leaser.leaseDueIntents({ owner: "l", now: Date.now(), leaseMs: 60_000, limit: 10 });
    const { first, second } = await withClient(async (raw) => {
      // An uncommitted row holding idempotency key "blocker" stalls process A's batch after A
      // has inserted (and drawn the seq of) its "hot" intent.
      await raw.query("BEGIN");
      await raw.query(
        `INSERT INTO "${schema}".intents (id, idempotency_key, channel, ordering_key, status,
           due_at, message, operation, created_at, updated_at)
         VALUES ('blocker', 'blocker', 'qa', 'elsewhere', 'pending', 0, '{}', '{}', 0, 0)`,
      );
      const first = a.enqueueIntents([
        newIntent(chat("hot", "first")),
        newIntent(chat("cold", "x"), { idempotencyKey: "blocker" }),
      ]);
      await blockedBackend(raw, `${schema}_a`);
      let secondSettled = false;
      const second = b.enqueueIntents([newIntent(chat("hot", "second"))]).finally(() => {
        secondSettled = true;
      });
      await new Promise((r) => setTimeout(r, 150));
      // With a bare sequence, B would have committed a higher seq by now and been leased ahead
      // of A's still-invisible earlier intent.
      expect(secondSettled).toBe(false);
      expect(await lease()).toEqual([]);
      await raw.query("ROLLBACK");
      return { first: await first, second: await second };
    });
    expect(second[0]?.intent.seq).toBeGreaterThan(first[0]?.intent.seq ?? Number.POSITIVE_INFINITY);
    expect((await lease()).map((i) => i.message.body?.markdown).sort()).toEqual(["first", "x"]);
  });

  it("gives exactly one process the dedupe lease of an event", async () => {
    const stores = await processes(3);
    const key = { channel: "slack", accountId: "T1", eventId: "Ev1" };
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        stores[i % 3]?.acquireDedupe(key, { owner: `o${i}`, now: 1_000, leaseMs: 30_000 }),
      ),
    );
    expect(results.filter((r) => r?.status === "acquired")).toHaveLength(1);
    expect(results.filter((r) => r?.status === "in_flight")).toHaveLength(11);
  });

  it("keeps ledger seq gap-free per conversation under appends from several processes", async () => {
    const stores = await processes(3);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        const store = stores[i % 3];
        // Batches touching two conversations in opposite orders must not deadlock.
        const pair = i % 2 === 0 ? ["c1", "c2"] : ["c2", "c1"];
        return store?.appendLedger(pair.map((conversation) => ({ conversation, type: `e${i}` })));
      }),
    );
    for (const conversation of ["c1", "c2"]) {
      const seqs = (await stores[0]?.readLedger({ conversation }))?.map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    }
  });

  it("applies crossing transition batches from two processes without deadlock", async () => {
    const [a, b] = await processes(2);
    if (!a || !b) throw new Error("stores missing");
    const rs = await a.enqueueIntents(
      Array.from({ length: 10 }, (_, i) => newIntent(chat(`t${i}`, `${i}`))),
    );
    const ids = rs.map((r) => r.intent.id);
    const results = await Promise.allSettled([
      a.transitionIntents(ids.map((id) => ({ id, from: "pending", to: "sending" }))),
      b.transitionIntents([...ids].reverse().map((id) => ({ id, from: "pending", to: "sending" }))),
    ]);
    // One wins every row; the other finds them all taken and writes nothing.
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((await a.countIntents()).sending).toBe(10);
  });
});
