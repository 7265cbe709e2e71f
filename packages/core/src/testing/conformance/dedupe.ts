/**
 * Conformance: inbound dedupe leases.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { DEDUPE_MIN_TTL_MS } from "../../state/types.ts";
import type { StoreContext } from "./harness.ts";

const key = { channel: "discord", accountId: "bot", eventId: "1234" };
const HOUR = 3_600_000;

export function dedupeTests(ctx: StoreContext): void {
  describe("inbound dedupe leases", () => {
    it("acquires a new event once; a concurrent duplicate sees it in flight", async () => {
      const s = ctx.store();
      expect(await s.acquireDedupe(key, { owner: "a", now: 1_000, leaseMs: 30_000 })).toEqual({
        status: "acquired",
      });
      expect(await s.acquireDedupe(key, { owner: "b", now: 1_001, leaseMs: 30_000 })).toEqual({
        status: "in_flight",
        owner: "a",
        leaseExpiresAt: 31_000,
      });
    });

    it("gives exactly one of many concurrent acquirers the lease", async () => {
      const s = ctx.store();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          s.acquireDedupe(key, { owner: `o${i}`, now: 1_000, leaseMs: 30_000 }),
        ),
      );
      expect(results.filter((r) => r.status === "acquired")).toHaveLength(1);
    });

    it("reports done with its meta after completion, for at least 24 h", async () => {
      const s = ctx.store();
      await s.acquireDedupe(key, { owner: "a", now: 1_000, leaseMs: 30_000 });
      expect(
        await s.completeDedupe(key, { owner: "a", now: 2_000, ttlMs: 1_000, meta: { turn: "t1" } }),
      ).toBe(true);
      const later = 2_000 + DEDUPE_MIN_TTL_MS - 1;
      expect(await s.acquireDedupe(key, { owner: "b", now: later, leaseMs: 30_000 })).toEqual({
        status: "done",
        meta: { turn: "t1" },
      });
      const record = await s.getDedupe(key);
      expect(record?.expiresAt).toBe(2_000 + DEDUPE_MIN_TTL_MS);
    });

    it("accepts the event again once the done record expired", async () => {
      const s = ctx.store();
      await s.acquireDedupe(key, { owner: "a", now: 0, leaseMs: 1_000 });
      await s.completeDedupe(key, { owner: "a", now: 0, ttlMs: 48 * HOUR });
      expect(
        (await s.acquireDedupe(key, { owner: "b", now: 47 * HOUR, leaseMs: 1_000 })).status,
      ).toBe("done");
      expect(
        (await s.acquireDedupe(key, { owner: "b", now: 48 * HOUR, leaseMs: 1_000 })).status,
      ).toBe("acquired");
    });

    it("releases the lease after a failure so a redelivery is processed", async () => {
      const s = ctx.store();
      await s.acquireDedupe(key, { owner: "a", now: 1_000, leaseMs: 30_000 });
      expect(await s.releaseDedupe(key, "b")).toBe(false);
      expect(await s.releaseDedupe(key, "a")).toBe(true);
      expect(await s.getDedupe(key)).toBeUndefined();
      expect((await s.acquireDedupe(key, { owner: "b", now: 1_100, leaseMs: 30_000 })).status).toBe(
        "acquired",
      );
    });

    it("lets another owner take an expired in-flight lease; the old owner cannot complete", async () => {
      const s = ctx.store();
      await s.acquireDedupe(key, { owner: "a", now: 1_000, leaseMs: 500 });
      expect((await s.acquireDedupe(key, { owner: "b", now: 1_500, leaseMs: 500 })).status).toBe(
        "acquired",
      );
      expect(await s.completeDedupe(key, { owner: "a", now: 1_600 })).toBe(false);
      expect(await s.completeDedupe(key, { owner: "b", now: 1_600 })).toBe(true);
    });

    it("renews an in-flight lease for a slow handler", async () => {
      const s = ctx.store();
      await s.acquireDedupe(key, { owner: "a", now: 1_000, leaseMs: 500 });
      expect(await s.renewDedupe(key, "a", 60_000)).toBe(true);
      expect(await s.renewDedupe(key, "b", 90_000)).toBe(false);
      expect((await s.acquireDedupe(key, { owner: "b", now: 59_999, leaseMs: 500 })).status).toBe(
        "in_flight",
      );
    });

    it("treats the same event id on another account or channel as a different event", async () => {
      const s = ctx.store();
      await s.acquireDedupe(key, { owner: "a", now: 1_000, leaseMs: 500 });
      expect(
        (
          await s.acquireDedupe(
            { ...key, accountId: "bot2" },
            { owner: "a", now: 1_000, leaseMs: 500 },
          )
        ).status,
      ).toBe("acquired");
      expect(
        (
          await s.acquireDedupe(
            { ...key, channel: "slack" },
            { owner: "a", now: 1_000, leaseMs: 500 },
          )
        ).status,
      ).toBe("acquired");
    });

    it("purges only expired done records, in bounded batches", async () => {
      const s = ctx.store();
      for (const eventId of ["e1", "e2", "e3"]) {
        await s.acquireDedupe({ ...key, eventId }, { owner: "a", now: 0, leaseMs: 500 });
        await s.completeDedupe({ ...key, eventId }, { owner: "a", now: 0 });
      }
      await s.acquireDedupe({ ...key, eventId: "live" }, { owner: "a", now: 0, leaseMs: 500 });
      const after = DEDUPE_MIN_TTL_MS + 1;
      expect(await s.purgeDedupe({ now: after, limit: 2 })).toBe(2);
      expect(await s.purgeDedupe({ now: after, limit: 2 })).toBe(1);
      expect(await s.getDedupe({ ...key, eventId: "live" })).toMatchObject({ status: "in_flight" });
    });
  });
}
