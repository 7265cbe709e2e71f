/**
 * Conformance: leasing, exclusivity, due-time order and ordering-key FIFO.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { newIntent, outboundMessage, textReceipt } from "../fixtures.ts";
import type { StoreContext } from "./harness.ts";

const chat = (id: string, text = id) => outboundMessage(text, { target: { id } });
/** A "now" safely after every intent's createdAt in this run; small offsets are added to it. */
const T = Date.now() + 10 * 60_000;

export function leaseTests(ctx: StoreContext): void {
  describe("leases", () => {
    it("leases a due intent, setting owner and expiry but not the status", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent()]);
      const [l] = await s.leaseDueIntents({ owner: "w1", now: T + 1_000, leaseMs: 500, limit: 5 });
      expect(l).toMatchObject({ status: "pending", leaseOwner: "w1", leaseExpiresAt: T + 1_500 });
    });

    it("never gives one intent to two concurrent leasers", async () => {
      const s = ctx.store();
      await s.enqueueIntents(Array.from({ length: 40 }, (_, i) => newIntent(chat(`c${i}`))));
      const now = Date.now();
      const batches = await Promise.all(
        ["a", "b", "c", "d"].map((owner) =>
          s.leaseDueIntents({ owner, now, leaseMs: 60_000, limit: 15 }),
        ),
      );
      const ids = batches.flat().map((i) => i.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(40);
    });

    it("does not re-lease a live lease but re-leases an expired one", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent()]);
      await s.leaseDueIntents({ owner: "w1", now: T + 1_000, leaseMs: 500, limit: 1 });
      expect(
        await s.leaseDueIntents({ owner: "w2", now: T + 1_499, leaseMs: 500, limit: 1 }),
      ).toEqual([]);
      const [taken] = await s.leaseDueIntents({
        owner: "w2",
        now: T + 1_500,
        leaseMs: 500,
        limit: 1,
      });
      expect(taken?.leaseOwner).toBe("w2");
      expect(await s.renewLease(taken?.id ?? "", "w1", T + 9_999)).toBe(false);
    });

    it("leases at most `limit` intents", async () => {
      const s = ctx.store();
      await s.enqueueIntents(Array.from({ length: 5 }, (_, i) => newIntent(chat(`c${i}`))));
      expect(
        await s.leaseDueIntents({ owner: "w", now: Date.now(), leaseMs: 1000, limit: 3 }),
      ).toHaveLength(3);
    });

    it("skips intents that are not due yet", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent(chat("c1"), { nextAttemptAt: T + 5_000 })]);
      expect(
        await s.leaseDueIntents({ owner: "w", now: T + 4_999, leaseMs: 1000, limit: 5 }),
      ).toEqual([]);
      expect(
        await s.leaseDueIntents({ owner: "w", now: T + 5_000, leaseMs: 1000, limit: 5 }),
      ).toHaveLength(1);
    });

    it("leases in due-time order across ordering keys", async () => {
      const s = ctx.store();
      await s.enqueueIntents([
        newIntent(chat("c1", "late"), { nextAttemptAt: T + 300 }),
        newIntent(chat("c2", "early"), { nextAttemptAt: T + 100 }),
        newIntent(chat("c3", "middle"), { nextAttemptAt: T + 200 }),
      ]);
      const leased = await s.leaseDueIntents({
        owner: "w",
        now: T + 1_000,
        leaseMs: 1000,
        limit: 3,
      });
      expect(leased.map((i) => i.message.body?.markdown)).toEqual(["early", "middle", "late"]);
    });

    it("renews a held lease and refuses a renewal by another worker", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent()]);
      const [l] = await s.leaseDueIntents({ owner: "w1", now: T + 1_000, leaseMs: 500, limit: 1 });
      expect(await s.renewLease(l?.id ?? "", "w1", T + 10_000)).toBe(true);
      expect(await s.renewLease(l?.id ?? "", "w2", T + 20_000)).toBe(false);
      expect((await s.getIntent(l?.id ?? ""))?.leaseExpiresAt).toBe(T + 10_000);
      expect(
        await s.leaseDueIntents({ owner: "w2", now: T + 9_999, leaseMs: 500, limit: 1 }),
      ).toEqual([]);
    });

    it("makes a released intent leasable at once", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent()]);
      const [l] = await s.leaseDueIntents({
        owner: "w1",
        now: T + 1_000,
        leaseMs: 60_000,
        limit: 1,
      });
      expect(await s.releaseLease(l?.id ?? "", "w2")).toBe(false);
      expect(await s.releaseLease(l?.id ?? "", "w1")).toBe(true);
      expect(
        await s.leaseDueIntents({ owner: "w2", now: T + 1_001, leaseMs: 1000, limit: 1 }),
      ).toHaveLength(1);
    });

    it("leases unknown_after_send intents only when asked to", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([newIntent()]);
      const id = r?.intent.id ?? "";
      await s.transitionIntents([{ id, from: "pending", to: "sending" }]);
      await s.transitionIntents([{ id, from: "sending", to: "unknown_after_send" }]);
      expect(
        await s.leaseDueIntents({ owner: "w", now: Date.now(), leaseMs: 1000, limit: 5 }),
      ).toEqual([]);
      const [l] = await s.leaseDueIntents({
        owner: "w",
        now: Date.now(),
        leaseMs: 1000,
        limit: 5,
        statuses: ["unknown_after_send"],
      });
      expect(l?.id).toBe(id);
    });
  });

  describe("claim on enqueue", () => {
    it("leases a new intent in the enqueue transaction when it is first in its key", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([
        newIntent(chat("c1"), { claim: { owner: "w1", now: T, leaseMs: 5_000 } }),
      ]);
      expect(r?.intent).toMatchObject({
        status: "pending",
        leaseOwner: "w1",
        leaseExpiresAt: T + 5_000,
      });
      expect(await s.leaseDueIntents({ owner: "w2", now: T + 1, leaseMs: 1000, limit: 5 })).toEqual(
        [],
      );
    });

    it("does not claim an intent queued behind an earlier unsent one, or not yet due", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent(chat("c1", "first"))]);
      const [second] = await s.enqueueIntents([
        newIntent(chat("c1", "second"), { claim: { owner: "w1", now: T, leaseMs: 5_000 } }),
      ]);
      expect(second?.intent.leaseOwner).toBeUndefined();
      const [later] = await s.enqueueIntents([
        newIntent(chat("c2"), {
          nextAttemptAt: T + 60_000,
          claim: { owner: "w1", now: T, leaseMs: 5_000 },
        }),
      ]);
      expect(later?.intent.leaseOwner).toBeUndefined();
    });
    it("returns each intent exactly as it is stored, claimed or not, whatever it carries", async () => {
      const s = ctx.store();
      const results = await s.enqueueIntents([
        newIntent(chat("c1", "claimed"), { claim: { owner: "w1", now: T, leaseMs: 5_000 } }),
        newIntent(chat("c1", "behind it"), { claim: { owner: "w1", now: T, leaseMs: 5_000 } }),
        newIntent(chat("c2", "later"), {
          nextAttemptAt: T + 60_000,
          turnId: "turn-1",
          claim: { owner: "w1", now: T, leaseMs: 5_000 },
        }),
        newIntent((({ accountId: _, ...m }) => m)(outboundMessage("no account")), {
          batch: {
            idempotencyKey: "b",
            atomicity: "all_or_retry_remaining",
            units: [{ index: 0, kind: "text", payload: { text: "x" }, required: true }],
          },
          liveState: { mode: "partial", canFinalizeInPlace: true },
          operation: { kind: "delete", receipt: textReceipt(["1"], T) },
          orderingKey: "own-key",
        }),
      ]);
      expect(results.map((r) => r.intent.leaseOwner)).toEqual([
        "w1",
        undefined,
        undefined,
        undefined,
      ]);
      for (const r of results) expect(r.intent).toEqual(await s.getIntent(r.intent.id));
    });
  });

  describe("ordering key FIFO", () => {
    it("does not lease a later intent while an earlier one with the same key is unsent", async () => {
      const s = ctx.store();
      const rs = await s.enqueueIntents([
        newIntent(chat("c1", "first")),
        newIntent(chat("c1", "second")),
      ]);
      const [first] = await s.leaseDueIntents({
        owner: "w1",
        now: T + 1_000,
        leaseMs: 60_000,
        limit: 5,
      });
      expect(first?.message.body?.markdown).toBe("first");
      // The first one is leased, not sent: the second must wait, for every worker.
      expect(
        await s.leaseDueIntents({ owner: "w2", now: T + 1_000, leaseMs: 60_000, limit: 5 }),
      ).toEqual([]);
      const id = rs[0]?.intent.id ?? "";
      await s.transitionIntents([{ id, from: "pending", to: "sending", owner: "w1" }]);
      await s.transitionIntents([{ id, from: "sending", to: "committing", owner: "w1" }]);
      expect(
        await s.leaseDueIntents({ owner: "w2", now: T + 1_000, leaseMs: 60_000, limit: 5 }),
      ).toEqual([]);
      await s.transitionIntents([{ id, from: "committing", to: "sent", owner: "w1" }]);
      const [second] = await s.leaseDueIntents({
        owner: "w2",
        now: T + 1_000,
        leaseMs: 60_000,
        limit: 5,
      });
      expect(second?.message.body?.markdown).toBe("second");
    });

    it("holds a due later intent behind an earlier one that is not due yet", async () => {
      const s = ctx.store();
      await s.enqueueIntents([
        newIntent(chat("c1", "first"), { nextAttemptAt: T + 10_000 }),
        newIntent(chat("c1", "second")),
      ]);
      expect(
        await s.leaseDueIntents({ owner: "w", now: T + 1_000, leaseMs: 1000, limit: 5 }),
      ).toEqual([]);
    });

    it("lets failed and cancelled intents stop blocking, but not unknown_after_send", async () => {
      const s = ctx.store();
      const rs = await s.enqueueIntents([
        newIntent(chat("c1", "a")),
        newIntent(chat("c1", "b")),
        newIntent(chat("c2", "x")),
        newIntent(chat("c2", "y")),
      ]);
      const [a, , x] = rs.map((r) => r.intent.id ?? "");
      await s.transitionIntents([{ id: a ?? "", from: "pending", to: "failed" }]);
      await s.transitionIntents([{ id: x ?? "", from: "pending", to: "sending" }]);
      await s.transitionIntents([{ id: x ?? "", from: "sending", to: "unknown_after_send" }]);
      const leased = await s.leaseDueIntents({
        owner: "w",
        now: Date.now(),
        leaseMs: 1000,
        limit: 5,
      });
      expect(leased.map((i) => i.message.body?.markdown)).toEqual(["b"]);
    });

    it("keeps different ordering keys independent", async () => {
      const s = ctx.store();
      await s.enqueueIntents([
        newIntent(chat("c1", "a1")),
        newIntent(chat("c1", "a2")),
        newIntent(chat("c2", "b1")),
      ]);
      const leased = await s.leaseDueIntents({
        owner: "w",
        now: Date.now(),
        leaseMs: 1000,
        limit: 5,
      });
      expect(leased.map((i) => i.message.body?.markdown).sort()).toEqual(["a1", "b1"]);
    });

    it("keeps FIFO per key when many workers drain the queue", async () => {
      const s = ctx.store();
      const inputs = Array.from({ length: 60 }, (_, i) =>
        newIntent(chat(`c${i % 3}`, `${i % 3}:${i}`)),
      );
      await s.enqueueIntents(inputs);
      const delivered: string[] = [];
      const worker = async (owner: string) => {
        for (;;) {
          const leased = await s.leaseDueIntents({
            owner,
            now: Date.now(),
            leaseMs: 60_000,
            limit: 2,
          });
          if (leased.length === 0) {
            const left = await s.countIntents();
            if (left.pending === 0) return;
            await new Promise((r) => setTimeout(r, 1));
            continue;
          }
          for (const l of leased) {
            await s.transitionIntents([{ id: l.id, from: "pending", to: "sending", owner }]);
            delivered.push(l.message.body?.markdown ?? "");
            await s.transitionIntents([{ id: l.id, from: "sending", to: "committing", owner }]);
            await s.transitionIntents([{ id: l.id, from: "committing", to: "sent", owner }]);
          }
        }
      };
      await Promise.all(["w1", "w2", "w3"].map(worker));
      for (const key of ["0", "1", "2"]) {
        const seen = delivered
          .filter((d) => d.startsWith(`${key}:`))
          .map((d) => Number(d.split(":")[1]));
        expect(seen).toEqual([...seen].sort((a, b) => a - b));
        expect(seen).toHaveLength(20);
      }
    });
  });
}
