/**
 * Conformance ([H25]): the recovery reads (`listRecoveryCandidates`: leased unsent intents,
 * skewed ones), `maxAgeMs` → `expiresAt`, and the terminal `expired` status.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { newIntent, outboundMessage } from "../fixtures.ts";
import type { StoreContext } from "./harness.ts";

export function recoveryTests(ctx: StoreContext): void {
  describe("recovery candidates and expiry ([H25])", () => {
    it("lists the leased pending and unknown_after_send intents, in seq order, after a cursor (C53)", async () => {
      const s = ctx.store();
      const now = Date.now();
      const made = await s.enqueueIntents(
        Array.from({ length: 6 }, (_, i) =>
          newIntent(outboundMessage(`m${i}`, { target: { id: `t${i}` } })),
        ),
      );
      const ids = made.map((r) => r.intent.id);
      // Leases m0..m3; m1 goes on to sending (not a leased-unsent candidate), m2 is released,
      // m3 goes through sending to unknown_after_send keeping a lease.
      await s.leaseDueIntents({ owner: "w:1", now, leaseMs: 60_000, limit: 4 });
      await s.transitionIntents([{ id: ids[1] as string, from: "pending", to: "sending" }]);
      expect(await s.releaseLease(ids[2] as string, "w:1")).toBe(true);
      await s.transitionIntents([
        { id: ids[3] as string, from: "pending", to: "sending", owner: "w:1" },
        { id: ids[3] as string, from: "sending", to: "unknown_after_send", owner: "w:1" },
      ]);
      const all = await s.listRecoveryCandidates({ kind: "leased", limit: 10 });
      expect(all.map((i) => i.id)).toEqual([ids[0], ids[3]]);
      expect(all.map((i) => i.leaseOwner)).toEqual(["w:1", "w:1"]);
      const first = await s.listRecoveryCandidates({ kind: "leased", limit: 1 });
      expect(first.map((i) => i.id)).toEqual([ids[0]]);
      const rest = await s.listRecoveryCandidates({
        kind: "leased",
        afterSeq: first[0]?.seq ?? 0,
        limit: 10,
      });
      expect(rest.map((i) => i.id)).toEqual([ids[3]]);
    });

    it("lists the pending intents due after a bound, earliest due first (clock-skew repair)", async () => {
      const s = ctx.store();
      const far = 4_000_000_000_000;
      await s.enqueueIntents([
        newIntent(outboundMessage("later", { target: { id: "a" } }), { nextAttemptAt: far + 2 }),
        newIntent(outboundMessage("soon", { target: { id: "b" } }), { nextAttemptAt: 1_000 }),
        newIntent(outboundMessage("sooner", { target: { id: "c" } }), { nextAttemptAt: far + 1 }),
        newIntent(outboundMessage("now", { target: { id: "d" } })),
      ]);
      const page = await s.listRecoveryCandidates({ kind: "skewed", dueAfter: far, limit: 10 });
      expect(page.map((i) => i.message.body?.markdown)).toEqual(["sooner", "later"]);
      const one = await s.listRecoveryCandidates({ kind: "skewed", dueAfter: far, limit: 1 });
      expect(one.map((i) => i.message.body?.markdown)).toEqual(["sooner"]);
    });

    it("stores maxAgeMs as expiresAt from the creation time, and clears it with a patch (C55)", async () => {
      const s = ctx.store();
      const [aged, plain] = await s.enqueueIntents([
        newIntent(outboundMessage("aged", { target: { id: "a" } }), { maxAgeMs: 60_000 }),
        newIntent(outboundMessage("plain", { target: { id: "b" } })),
      ]);
      const a = aged?.intent;
      expect(a?.expiresAt).toBe((a?.createdAt ?? 0) + 60_000);
      expect((await s.getIntent(a?.id ?? ""))?.expiresAt).toBe((a?.createdAt ?? 0) + 60_000);
      expect(plain?.intent.expiresAt).toBeUndefined();
      const cleared = await s.updateIntent(a?.id ?? "", { status: "pending" }, { expiresAt: null });
      expect(cleared.expiresAt).toBeUndefined();
    });

    it("ends an intent expired (terminal: counted, purged), and an operator may send it again (C55)", async () => {
      const s = ctx.store();
      const now = Date.now();
      const [a, b] = await s.enqueueIntents([
        newIntent(outboundMessage("late", { target: { id: "a" } }), { maxAgeMs: 1 }),
        newIntent(outboundMessage("later", { target: { id: "b" } }), { maxAgeMs: 1 }),
      ]);
      const [leased] = await s.leaseDueIntents({ owner: "w", now, leaseMs: 60_000, limit: 1 });
      const [expired] = await s.transitionIntents([
        { id: leased?.id ?? "", from: "pending", to: "expired", owner: "w" },
      ]);
      expect(expired?.status).toBe("expired");
      expect(expired?.leaseOwner).toBeUndefined();
      expect((await s.countIntents()).expired).toBe(1);
      expect(await s.listIntents({ statuses: ["expired"] })).toHaveLength(1);
      // An operator's retry: back to pending without the age limit.
      const other = leased?.id === a?.intent.id ? b?.intent.id : a?.intent.id;
      await s.transitionIntents([{ id: other ?? "", from: "pending", to: "expired" }]);
      const [again] = await s.transitionIntents([
        { id: other ?? "", from: "expired", to: "pending", patch: { expiresAt: null } },
      ]);
      expect(again?.status).toBe("pending");
      expect(again?.expiresAt).toBeUndefined();
      // Expired intents are terminal tombstones: purged like sent, failed and cancelled ones.
      expect(await s.purgeTerminalIntents({ before: Date.now() + 60_000, limit: 10 })).toBe(1);
      expect(await s.getIntent(leased?.id ?? "")).toBeUndefined();
    });
  });
}
