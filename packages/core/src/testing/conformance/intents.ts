/**
 * Conformance: enqueue idempotency, transitions, patches, listing, counting.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import {
  HELD_FOR_OPERATOR_AT,
  IllegalTransitionError,
  INTENT_STATUSES,
  orderingKeyOf,
} from "../../message/intent.ts";
import { IntentConflictError } from "../../state/errors.ts";
import { newIntent, outboundMessage, textReceipt } from "../fixtures.ts";
import type { StoreContext } from "./harness.ts";

export function intentTests(ctx: StoreContext): void {
  describe("enqueue", () => {
    it("creates a pending intent with defaults", async () => {
      const input = newIntent();
      const [r] = await ctx.store().enqueueIntents([input]);
      expect(r?.created).toBe(true);
      expect(r?.intent).toMatchObject({
        status: "pending",
        attempt: 0,
        idempotencyKey: input.idempotencyKey,
        channel: "qa",
        accountId: "bot-1",
        operation: { kind: "send" },
        orderingKey: orderingKeyOf(input.message),
      });
      expect(r?.intent.leaseOwner).toBeUndefined();
      expect(r?.intent.createdAt).toBeGreaterThan(0);
    });

    it("round-trips message, batch and live state unchanged", async () => {
      const message = outboundMessage("**bold** 😀", {
        relation: { kind: "reply", replyToId: "77", threadId: "42" },
        attachments: [{ kind: "image", url: "https://example.test/a.png", caption: "cap" }],
      });
      const batch = {
        idempotencyKey: "b",
        atomicity: "all_or_retry_remaining" as const,
        units: [
          { index: 0, kind: "text" as const, payload: { text: "x", n: [1, 2] }, required: true },
        ],
      };
      const liveState = {
        mode: "partial" as const,
        canFinalizeInPlace: true,
        lastRenderedHash: "h",
      };
      const [r] = await ctx
        .store()
        .enqueueIntents([newIntent(message, { batch, liveState, turnId: "t1" })]);
      const read = await ctx.store().getIntent(r?.intent.id ?? "");
      expect(read?.message).toEqual(message);
      expect(read?.batch).toEqual(batch);
      expect(read?.liveState).toEqual(liveState);
      expect(read?.turnId).toBe("t1");
    });

    it("returns the existing intent for a repeated idempotency key", async () => {
      const input = newIntent();
      const [first] = await ctx.store().enqueueIntents([input]);
      const [again] = await ctx
        .store()
        .enqueueIntents([{ ...input, message: outboundMessage("other") }]);
      expect(again?.created).toBe(false);
      expect(again?.intent.id).toBe(first?.intent.id);
      expect(again?.intent.message.body?.markdown).toBe("hello");
    });

    it("returns the receipt of a sent intent for a repeated key", async () => {
      const s = ctx.store();
      const input = newIntent();
      const [r] = await s.enqueueIntents([input]);
      const id = r?.intent.id ?? "";
      await s.transitionIntents([{ id, from: "pending", to: "sending" }]);
      await s.transitionIntents([
        { id, from: "sending", to: "committing", patch: { receipt: textReceipt(["m1"]) } },
      ]);
      await s.transitionIntents([{ id, from: "committing", to: "sent" }]);
      const [again] = await s.enqueueIntents([input]);
      expect(again?.created).toBe(false);
      expect(again?.intent.status).toBe("sent");
      expect(again?.intent.receipt?.platformMessageIds).toEqual(["m1"]);
    });

    it("dedupes repeated keys inside one batch", async () => {
      const input = newIntent();
      const results = await ctx.store().enqueueIntents([input, input]);
      expect(results.map((r) => r.created)).toEqual([true, false]);
      expect(results[0]?.intent.id).toBe(results[1]?.intent.id);
    });

    it("assigns strictly increasing seq", async () => {
      const rs = await ctx.store().enqueueIntents([newIntent(), newIntent(), newIntent()]);
      const [more] = await ctx.store().enqueueIntents([newIntent()]);
      const seqs = [...rs, ...(more ? [more] : [])].map((r) => r.intent.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(4);
    });

    it("answers undefined for an unknown id or key", async () => {
      expect(await ctx.store().getIntent("nope")).toBeUndefined();
      expect(await ctx.store().getIntentByIdempotencyKey("nope")).toBeUndefined();
    });
  });

  describe("transitions", () => {
    it("walks pending → sending → committing → sent and releases the lease", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent()]);
      const [leased] = await s.leaseDueIntents({
        owner: "w1",
        now: Date.now(),
        leaseMs: 60_000,
        limit: 1,
      });
      const id = leased?.id ?? "";
      await s.transitionIntents([
        { id, from: "pending", to: "sending", owner: "w1", patch: { attempt: 1 } },
      ]);
      await s.transitionIntents([
        {
          id,
          from: "sending",
          to: "committing",
          owner: "w1",
          patch: { receipt: textReceipt(["a", "b"]) },
        },
      ]);
      const [sent] = await s.transitionIntents([
        { id, from: "committing", to: "sent", owner: "w1" },
      ]);
      expect(sent).toMatchObject({ status: "sent", attempt: 1 });
      expect(sent?.receipt?.platformMessageIds).toEqual(["a", "b"]);
      expect(sent?.leaseOwner).toBeUndefined();
      expect(sent?.leaseExpiresAt).toBeUndefined();
    });

    it("rejects a transition from the wrong status and writes nothing", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([newIntent()]);
      const id = r?.intent.id ?? "";
      await expect(
        s.transitionIntents([{ id, from: "sending", to: "committing", patch: { attempt: 9 } }]),
      ).rejects.toBeInstanceOf(IntentConflictError);
      expect((await s.getIntent(id))?.attempt).toBe(0);
    });

    it("rejects a transition by a worker that does not hold the lease", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent()]);
      const [leased] = await s.leaseDueIntents({
        owner: "w1",
        now: Date.now(),
        leaseMs: 60_000,
        limit: 1,
      });
      await expect(
        s.transitionIntents([
          { id: leased?.id ?? "", from: "pending", to: "sending", owner: "w2" },
        ]),
      ).rejects.toThrow(/leased by w1/);
    });

    it("rejects an illegal transition with a typed error naming from → to", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([newIntent()]);
      const err = await s
        .transitionIntents([{ id: r?.intent.id ?? "", from: "pending", to: "sent" }])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IllegalTransitionError);
      expect((err as Error).message).toContain("pending → sent");
      expect((await s.getIntent(r?.intent.id ?? ""))?.status).toBe("pending");
    });

    it("applies a batch of transitions all or none", async () => {
      const s = ctx.store();
      const rs = await s.enqueueIntents([newIntent(), newIntent()]);
      const [a, b] = rs.map((r) => r.intent.id);
      await s.transitionIntents([{ id: b ?? "", from: "pending", to: "cancelled" }]);
      await expect(
        s.transitionIntents([
          { id: a ?? "", from: "pending", to: "sending" },
          { id: b ?? "", from: "pending", to: "sending" },
        ]),
      ).rejects.toBeInstanceOf(IntentConflictError);
      expect((await s.getIntent(a ?? ""))?.status).toBe("pending");
    });

    it("applies two transitions of one intent in one call, in order", async () => {
      const s = ctx.store();
      await s.enqueueIntents([newIntent()]);
      const [leased] = await s.leaseDueIntents({
        owner: "w1",
        now: Date.now(),
        leaseMs: 60_000,
        limit: 1,
      });
      const id = leased?.id ?? "";
      await s.transitionIntents([{ id, from: "pending", to: "sending", owner: "w1" }]);
      const [committing, sent] = await s.transitionIntents([
        {
          id,
          from: "sending",
          to: "committing",
          owner: "w1",
          patch: { receipt: textReceipt(["x1"]) },
        },
        { id, from: "committing", to: "sent", owner: "w1" },
      ]);
      expect(committing?.status).toBe("committing");
      expect(sent).toMatchObject({ status: "sent", receipt: { platformMessageIds: ["x1"] } });
      expect(
        (await s.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: "x1" }))
          ?.intentId,
      ).toBe(id);
    });

    it("keeps concurrent calls independent: one caller's conflict fails only that caller", async () => {
      const s = ctx.store();
      const rs = await s.enqueueIntents([newIntent(), newIntent(), newIntent()]);
      const [a, b, c] = rs.map((r) => r.intent.id ?? "");
      // Called in the same tick: a store that groups them into one transaction (group commit)
      // must still apply a and c when b's compare-and-set fails.
      const results = await Promise.allSettled([
        s.transitionIntents([{ id: a ?? "", from: "pending", to: "cancelled" }]),
        s.transitionIntents([{ id: b ?? "", from: "sending", to: "committing" }]),
        s.transitionIntents([{ id: c ?? "", from: "pending", to: "cancelled" }]),
        s.enqueueIntents([newIntent()]),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        "fulfilled",
        "rejected",
        "fulfilled",
        "fulfilled",
      ]);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(IntentConflictError);
      expect((await s.getIntent(a ?? ""))?.status).toBe("cancelled");
      expect((await s.getIntent(b ?? ""))?.status).toBe("pending");
      expect((await s.getIntent(c ?? ""))?.status).toBe("cancelled");
      expect((await s.countIntents()).pending).toBe(2);
    });

    it("clears optional fields patched with null and keeps the failure reason", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([newIntent()]);
      const id = r?.intent.id ?? "";
      const failure = {
        kind: "transient" as const,
        evidence: "not_dispatched" as const,
        message: "ECONNREFUSED",
        retryAfterMs: 1500,
      };
      await s.transitionIntents([{ id, from: "pending", to: "sending" }]);
      const [retry] = await s.transitionIntents([
        { id, from: "sending", to: "pending", patch: { attempt: 1, failure, nextAttemptAt: 5 } },
      ]);
      expect(retry).toMatchObject({ failure, nextAttemptAt: 5, attempt: 1 });
      const [cleared] = await s.transitionIntents([
        { id, from: "pending", to: "sending", patch: { failure: null, nextAttemptAt: null } },
      ]);
      expect(cleared?.failure).toBeUndefined();
      expect(cleared?.nextAttemptAt).toBeUndefined();
    });

    it("keeps each unit's firstDispatchAt across transitions and updates (idempotency windows)", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([newIntent()]);
      const id = r?.intent.id ?? "";
      expect(r?.intent.firstDispatchAt).toBeUndefined();
      const [sending] = await s.transitionIntents([
        { id, from: "pending", to: "sending", patch: { firstDispatchAt: { "0": 1_000 } } },
      ]);
      expect(sending?.firstDispatchAt).toEqual({ "0": 1_000 });
      const both = { "0": 1_000, "1": 2_500 };
      await s.updateIntent(id, { status: "sending" }, { firstDispatchAt: both });
      const [unknown] = await s.transitionIntents([
        { id, from: "sending", to: "unknown_after_send", patch: { attempt: 1 } },
      ]);
      expect(unknown?.firstDispatchAt).toEqual(both);
      expect((await s.getIntent(id))?.firstDispatchAt).toEqual(both);
      const [cleared] = await s.transitionIntents([
        { id, from: "unknown_after_send", to: "pending", patch: { firstDispatchAt: null } },
      ]);
      expect(cleared?.firstDispatchAt).toBeUndefined();
    });

    it("updates live state and partial receipts without a status change", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([newIntent()]);
      const id = r?.intent.id ?? "";
      const live = {
        mode: "partial" as const,
        canFinalizeInPlace: false,
        receipt: textReceipt(["p1"]),
      };
      const updated = await s.updateIntent(
        id,
        { status: "pending" },
        { liveState: live, partialReceipt: textReceipt(["u0"]) },
      );
      expect(updated).toMatchObject({ status: "pending", liveState: live });
      await expect(
        s.updateIntent(id, { status: "sending" }, { attempt: 3 }),
      ).rejects.toBeInstanceOf(IntentConflictError);
    });
  });

  describe("queries", () => {
    it("lists by status, channel and seq cursor in seq order", async () => {
      const s = ctx.store();
      const rs = await s.enqueueIntents([
        newIntent(outboundMessage("a")),
        newIntent(outboundMessage("b", { channel: "other" })),
        newIntent(outboundMessage("c")),
      ]);
      await s.transitionIntents([{ id: rs[2]?.intent.id ?? "", from: "pending", to: "cancelled" }]);
      const qa = await s.listIntents({ channel: "qa" });
      expect(qa.map((i) => i.message.body?.markdown)).toEqual(["a", "c"]);
      const pending = await s.listIntents({ statuses: ["pending"] });
      expect(pending.map((i) => i.message.body?.markdown)).toEqual(["a", "b"]);
      const after = await s.listIntents({ afterSeq: rs[0]?.intent.seq ?? 0, limit: 1 });
      expect(after.map((i) => i.message.body?.markdown)).toEqual(["b"]);
    });

    it("reads the status columns of many intents at once, unknown ids left out (getIntentStatuses)", async () => {
      const s = ctx.store();
      if (!s.getIntentStatuses) return; // optional: the worker then reads whole rows
      const rs = await s.enqueueIntents([
        newIntent(outboundMessage("a")),
        newIntent(outboundMessage("b")),
        newIntent(outboundMessage("c"), { nextAttemptAt: HELD_FOR_OPERATOR_AT }),
      ]);
      const [a, b, c] = rs.map((r) => r.intent);
      if (!a || !b || !c) throw new Error("enqueue returned fewer intents");
      const [cancelled] = await s.transitionIntents([
        { id: b.id, from: "pending", to: "cancelled" },
      ]);
      const rows = await s.getIntentStatuses([c.id, "nope", a.id, b.id, a.id]);
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(rows.map((r) => r.id).sort()).toEqual([a.id, b.id, c.id].sort());
      expect(byId.get(a.id)).toEqual({ id: a.id, status: "pending", updatedAt: a.updatedAt });
      expect(byId.get(b.id)).toEqual({
        id: b.id,
        status: "cancelled",
        updatedAt: cancelled?.updatedAt,
      });
      expect(byId.get(c.id)).toEqual({
        id: c.id,
        status: "pending",
        nextAttemptAt: HELD_FOR_OPERATOR_AT,
        updatedAt: c.updatedAt,
      });
      expect(await s.getIntentStatuses([])).toEqual([]);
    });

    it("counts every status, zero included", async () => {
      const s = ctx.store();
      const rs = await s.enqueueIntents([
        newIntent(),
        newIntent(),
        newIntent(outboundMessage("x", { channel: "c2" })),
      ]);
      await s.transitionIntents([{ id: rs[0]?.intent.id ?? "", from: "pending", to: "failed" }]);
      const counts = await s.countIntents();
      expect(Object.keys(counts).sort()).toEqual([...INTENT_STATUSES].sort());
      expect(counts).toMatchObject({ pending: 2, failed: 1, sent: 0 });
      expect((await s.countIntents({ channel: "c2" })).pending).toBe(1);
    });

    it("finds intents scheduled beyond a time (clock-skew repair)", async () => {
      const s = ctx.store();
      await s.enqueueIntents([
        newIntent(outboundMessage("soon"), { nextAttemptAt: 1_000 }),
        newIntent(outboundMessage("skewed"), { nextAttemptAt: 4_000_000_000_000 }),
        newIntent(outboundMessage("now")),
      ]);
      const far = await s.listIntents({
        statuses: ["pending"],
        nextAttemptAfter: 2_000_000_000_000,
      });
      expect(far.map((i) => i.message.body?.markdown)).toEqual(["skewed"]);
    });

    it("finds intents last written after a time, by status, in seq order (restart seed)", async () => {
      const s = ctx.store();
      /** Waits until the store's clock has moved past `t` (ms ticks; no timing asserted). */
      const after = async (t: number) => {
        for (;;) {
          await new Promise((r) => setTimeout(r, 3));
          const [probe] = await s.enqueueIntents([
            newIntent(outboundMessage("probe", { channel: "clock" })),
          ]);
          if ((probe?.intent.updatedAt ?? 0) > t) return;
        }
      };
      const [old, moved] = await s.enqueueIntents([
        newIntent(outboundMessage("old", { target: { id: "t1" } })),
        newIntent(outboundMessage("moved", { target: { id: "t2" } })),
      ]);
      const oldAt = old?.intent.updatedAt ?? 0;
      await after(oldAt);
      const [recent] = await s.enqueueIntents([
        newIntent(outboundMessage("recent", { target: { id: "t3" } })),
      ]);
      // A later write brings an old intent into the window: it is the last write that counts.
      const [cancelled] = await s.transitionIntents([
        { id: moved?.intent.id ?? "", from: "pending", to: "cancelled" },
      ]);
      expect(cancelled?.updatedAt).toBeGreaterThan(oldAt);
      const texts = async (q: Parameters<typeof s.listIntents>[0]) =>
        (await s.listIntents({ channel: "qa", ...q })).map((i) => i.message.body?.markdown);
      expect(await texts({ updatedAfter: oldAt, statuses: ["pending", "cancelled"] })).toEqual([
        "moved",
        "recent",
      ]);
      expect(await texts({ updatedAfter: oldAt, statuses: ["cancelled"] })).toEqual(["moved"]);
      expect(await texts({ updatedAfter: oldAt - 1, statuses: ["pending"], limit: 1 })).toEqual([
        "old",
      ]);
      const last = Math.max(recent?.intent.updatedAt ?? 0, cancelled?.updatedAt ?? 0);
      expect(await texts({ updatedAfter: last, statuses: ["cancelled"] })).toEqual([]);
    });

    it("finds sending intents whose lease expired (the recovery query)", async () => {
      const s = ctx.store();
      const now = Date.now();
      await s.enqueueIntents([
        newIntent(outboundMessage("a", { target: { id: "t1" } })),
        newIntent(outboundMessage("b", { target: { id: "t2" } })),
      ]);
      const leased = await s.leaseDueIntents({ owner: "w1", now, leaseMs: 1000, limit: 2 });
      for (const l of leased)
        await s.transitionIntents([{ id: l.id, from: "pending", to: "sending", owner: "w1" }]);
      await s.renewLease(leased[1]?.id ?? "", "w1", now + 60_000);
      const stale = await s.listIntents({ statuses: ["sending"], leaseExpiredBefore: now + 5_000 });
      expect(stale.map((i) => i.id)).toEqual([leased[0]?.id]);
    });
  });
}
