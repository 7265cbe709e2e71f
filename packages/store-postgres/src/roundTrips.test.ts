/**
 * The round trips of the delivery path (docs/concepts/scaling.md "Cost per message"): every
 * statement the store sends is counted at the driver, so a change that splits a write back into
 * a transaction of several statements shows here. And the outcomes of the single-statement
 * writes that a step-by-step transaction used to give: a batch that contradicts itself names
 * its conflicting step and writes nothing.
 */
import { IntentConflictError } from "@herald/core";
import { newIntent, outboundMessage, textReceipt } from "@herald/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { PostgresStateStore } from "./PostgresStateStore.ts";
import {
  postgresAvailable,
  recordStatements,
  requirePostgresOrSkip,
  throwawaySchemas,
} from "./testing/postgresTest.ts";

const available = requirePostgresOrSkip(await postgresAvailable());
const env = throwawaySchemas();
afterAll(() => env.dispose());

/** The statements this process sends (first word of each), since the last reset. */
const statements = recordStatements();

async function leasedIntent(): Promise<{ store: PostgresStateStore; id: string }> {
  const store = env.store(env.schema());
  await store.open();
  await store.enqueueIntents([newIntent()]);
  const [leased] = await store.leaseDueIntents({
    owner: "w1",
    now: Date.now(),
    leaseMs: 60_000,
    limit: 1,
  });
  return { store, id: leased?.id ?? "" };
}

describe.skipIf(!available)("PostgresStateStore round trips", () => {
  it("writes sending in one statement, and committing + sent with its registry rows in one", async () => {
    const { store, id } = await leasedIntent();
    statements.reset();
    await store.transitionIntents([
      { id, from: "pending", to: "sending", owner: "w1", patch: { attempt: 1 } },
    ]);
    expect(statements.sent).toHaveLength(1);
    statements.reset();
    const [committing, done] = await store.transitionIntents([
      {
        id,
        from: "sending",
        to: "committing",
        owner: "w1",
        patch: { receipt: textReceipt(["r1", "r2"]) },
      },
      { id, from: "committing", to: "sent", owner: "w1", patch: { partialReceipt: null } },
    ]);
    expect(statements.sent).toHaveLength(1);
    expect(committing).toMatchObject({ status: "committing", leaseOwner: "w1", attempt: 1 });
    expect(done).toMatchObject({ status: "sent", attempt: 1 });
    expect(done?.leaseOwner).toBeUndefined();
    for (const platformMessageId of ["r1", "r2"]) {
      const found = await store.lookupReceipt({
        channel: "qa",
        accountId: "bot-1",
        platformMessageId,
      });
      expect(found?.intentId).toBe(id);
    }
  });

  it("enqueues a batch in one statement, and concurrent enqueues of one process share one", async () => {
    const store = env.store(env.schema());
    await store.open();
    statements.reset();
    const batch = Array.from({ length: 5 }, (_, i) =>
      newIntent(outboundMessage(`b${i}`, { target: { id: "c1" } })),
    );
    const first = await store.enqueueIntents(batch);
    expect(statements.sent).toEqual(["SELECT"]);
    expect(first.map((r) => r.created)).toEqual([true, true, true, true, true]);
    statements.reset();
    // Eight calls in one tick, the last repeating the first's key: one statement, seq in call
    // order, the repeated key answered with the intent the same statement inserted.
    const calls = Array.from({ length: 8 }, (_, i) =>
      store.enqueueIntents([
        newIntent(outboundMessage(`m${i}`, { target: { id: "c1" } }), {
          idempotencyKey: i === 7 ? "k0" : `k${i}`,
        }),
      ]),
    );
    const results = (await Promise.all(calls)).map(([r]) => r);
    expect(statements.sent).toEqual(["SELECT"]);
    const seqs = results.slice(0, 7).map((r) => r?.intent.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs[0]).toBeGreaterThan(first.at(-1)?.intent.seq ?? 0);
    expect(results[7]).toMatchObject({ created: false, intent: { id: results[0]?.intent.id } });
    expect(results[7]?.intent.message.body?.markdown).toBe("m0");
  });

  it("leases a claimed enqueue at once only when no earlier unsent intent shares its key", async () => {
    const store = env.store(env.schema());
    await store.open();
    const now = Date.now();
    const claim = { owner: "w1", now, leaseMs: 60_000 };
    const [a, b, c] = await Promise.all([
      store.enqueueIntents([newIntent(outboundMessage("a", { target: { id: "x" } }), { claim })]),
      store.enqueueIntents([newIntent(outboundMessage("b", { target: { id: "x" } }), { claim })]),
      store.enqueueIntents([newIntent(outboundMessage("c", { target: { id: "y" } }), { claim })]),
    ]);
    expect(a?.[0]?.intent.leaseOwner).toBe("w1");
    expect(b?.[0]?.intent.leaseOwner).toBeUndefined();
    expect(c?.[0]?.intent).toMatchObject({ leaseOwner: "w1", leaseExpiresAt: now + 60_000 });
  });

  it("puts concurrent transitions of distinct intents into one statement, each all or none", async () => {
    const store = env.store(env.schema());
    await store.open();
    await store.enqueueIntents(
      Array.from({ length: 6 }, (_, i) =>
        newIntent(outboundMessage(`m${i}`, { target: { id: `c${i}` } })),
      ),
    );
    const leased = await store.leaseDueIntents({
      owner: "w1",
      now: Date.now(),
      leaseMs: 60_000,
      limit: 6,
    });
    expect(leased).toHaveLength(6);
    const ids = leased.map((l) => l.id);
    statements.reset();
    // Five callers in one tick; the fourth names a wrong owner for its second intent.
    const outcomes = await Promise.allSettled([
      store.transitionIntents([{ id: ids[0] ?? "", from: "pending", to: "sending", owner: "w1" }]),
      store.transitionIntents([
        { id: ids[1] ?? "", from: "pending", to: "sending", owner: "w1", patch: { attempt: 1 } },
      ]),
      store.updateIntent(ids[2] ?? "", { status: "pending", owner: "w1" }, { nextAttemptAt: 5 }),
      store.transitionIntents([
        { id: ids[3] ?? "", from: "pending", to: "sending", owner: "w1" },
        { id: ids[4] ?? "", from: "pending", to: "sending", owner: "w2" },
      ]),
      store.transitionIntents([
        { id: ids[5] ?? "", from: "pending", to: "sending", owner: "w1" },
        {
          id: ids[5] ?? "",
          from: "sending",
          to: "committing",
          owner: "w1",
          patch: { receipt: textReceipt(["p5"]) },
        },
        { id: ids[5] ?? "", from: "committing", to: "sent", owner: "w1" },
      ]),
    ]);
    expect(statements.sent).toEqual(["WITH"]);
    expect(outcomes.map((o) => o.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    const err = (outcomes[3] as PromiseRejectedResult).reason;
    expect(err).toBeInstanceOf(IntentConflictError);
    expect((err as IntentConflictError).intentId).toBe(ids[4]);
    expect((err as IntentConflictError).actual).toEqual({ status: "pending", owner: "w1" });
    const value = <T>(o: PromiseSettledResult<T> | undefined) =>
      (o as PromiseFulfilledResult<T>).value;
    expect(value(outcomes[1])).toMatchObject([{ status: "sending", attempt: 1 }]);
    expect(value(outcomes[2])).toMatchObject({ status: "pending", nextAttemptAt: 5 });
    expect(value(outcomes[4])).toMatchObject([
      { status: "sending" },
      { status: "committing", leaseOwner: "w1" },
      { status: "sent" },
    ]);
    const statuses = await Promise.all(ids.map(async (id) => (await store.getIntent(id))?.status));
    expect(statuses).toEqual(["sending", "sending", "pending", "pending", "pending", "sent"]);
    expect(
      await store.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: "p5" }),
    ).toMatchObject({ intentId: ids[5] });
  });

  it("keeps two calls on one intent in separate statements, in call order", async () => {
    const { store, id } = await leasedIntent();
    statements.reset();
    const [sending, committing] = await Promise.all([
      store.transitionIntents([{ id, from: "pending", to: "sending", owner: "w1" }]),
      store.transitionIntents([{ id, from: "sending", to: "committing", owner: "w1" }]),
    ]);
    expect(statements.sent).toEqual(["WITH", "WITH"]);
    expect(sending?.[0]?.status).toBe("sending");
    expect(committing?.[0]?.status).toBe("committing");
  });

  it("rejects a batch whose second step does not start where the first ended, writing nothing", async () => {
    const { store, id } = await leasedIntent();
    const err = await store
      .transitionIntents([
        { id, from: "pending", to: "sending", owner: "w1", patch: { attempt: 1 } },
        { id, from: "committing", to: "sent", owner: "w1" },
      ])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntentConflictError);
    // The step a step-by-step transaction would have failed at: the second, seeing `sending`.
    expect((err as IntentConflictError).expected.status).toBe("committing");
    expect((err as IntentConflictError).actual?.status).toBe("sending");
    expect(await store.getIntent(id)).toMatchObject({ status: "pending", attempt: 0 });
  });

  it("rejects a step by another owner after a step that kept the lease, writing nothing", async () => {
    const { store, id } = await leasedIntent();
    const err = await store
      .transitionIntents([
        { id, from: "pending", to: "sending", owner: "w1" },
        { id, from: "sending", to: "pending", owner: "w2" },
      ])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntentConflictError);
    expect((err as IntentConflictError).actual).toEqual({ status: "sending", owner: "w1" });
    expect((await store.getIntent(id))?.status).toBe("pending");
  });
});
