/**
 * Conformance: watermarks, turn ledger, dead letters, schema and lifecycle.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../state/errors.ts";
import type { MessageStateStore } from "../../state/MessageStateStore.ts";
import { newIntent } from "../fixtures.ts";
import type { StoreContext } from "./harness.ts";

export function miscTests(ctx: StoreContext, create: () => Promise<MessageStateStore>): void {
  describe("polling watermarks", () => {
    it("stores one value per channel, account and source", async () => {
      const s = ctx.store();
      const k = { channel: "telegram", accountId: "bot1" };
      expect(await s.getWatermark(k)).toBeUndefined();
      await s.setWatermark(k, "100");
      await s.setWatermark({ ...k, accountId: "bot2" }, "7");
      await s.setWatermark({ ...k, source: "webhook" }, "x");
      await s.setWatermark(k, "101");
      expect(await s.getWatermark(k)).toBe("101");
      expect(await s.getWatermark({ ...k, accountId: "bot2" })).toBe("7");
      expect(await s.getWatermark({ ...k, source: "webhook" })).toBe("x");
    });
  });

  describe("turn ledger", () => {
    it("assigns seq from 1 per conversation and reads ranges in order", async () => {
      const s = ctx.store();
      const appended = await s.appendLedger([
        { conversation: "c1", type: "turn/start", turnId: "t1", data: { inbound: "m1" } },
        { conversation: "c2", type: "turn/start", turnId: "t9" },
        { conversation: "c1", type: "message", turnId: "t1", data: { role: "assistant" } },
      ]);
      expect(appended.map((e) => [e.conversation, e.seq])).toEqual([
        ["c1", 1],
        ["c2", 1],
        ["c1", 2],
      ]);
      await s.appendLedger([
        { conversation: "c1", type: "turn/end", turnId: "t1", data: { outcome: "completed" } },
      ]);
      const all = await s.readLedger({ conversation: "c1" });
      expect(all.map((e) => e.type)).toEqual(["turn/start", "message", "turn/end"]);
      expect(all[0]?.data).toEqual({ inbound: "m1" });
      const range = await s.readLedger({ conversation: "c1", fromSeq: 2, toSeq: 2 });
      expect(range.map((e) => e.seq)).toEqual([2]);
    });

    it("keeps seq unique under concurrent appends", async () => {
      const s = ctx.store();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.appendLedger([{ conversation: "c", type: `e${i}` }]),
        ),
      );
      const seqs = (await s.readLedger({ conversation: "c" })).map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });
  });

  describe("dead letters", () => {
    it("keeps the raw payload and the error, lists and marks them", async () => {
      const s = ctx.store();
      const raw = { update_id: 5, message: { text: 42 } };
      const error = {
        name: "PayloadValidationError",
        message: "expected string",
        path: "message.text",
      };
      const letter = await s.putDeadLetter({
        channel: "telegram",
        accountId: "b",
        raw,
        error,
        receivedAt: 10,
      });
      await s.putDeadLetter({ channel: "slack", raw: "not json {", error, receivedAt: 11 });
      expect(await s.getDeadLetter(letter.id)).toEqual({
        ...letter,
        raw,
        error,
        status: "new",
        replayCount: 0,
      });
      expect((await s.listDeadLetters({ channel: "telegram" })).map((l) => l.id)).toEqual([
        letter.id,
      ]);
      expect((await s.listDeadLetters()).map((l) => l.raw)).toEqual([raw, "not json {"]);
      await s.markDeadLetter(letter.id, "replayed", 20);
      expect(await s.getDeadLetter(letter.id)).toMatchObject({
        status: "replayed",
        replayedAt: 20,
        replayCount: 1,
      });
      expect(await s.listDeadLetters({ status: "new" })).toHaveLength(1);
    });
  });

  describe("lifecycle", () => {
    it("reports a positive schema version", async () => {
      expect(await ctx.store().schemaVersion()).toBeGreaterThan(0);
    });

    it("fails closed with StoreUnavailableError after close", async () => {
      const s = await create();
      await s.close();
      await expect(s.enqueueIntents([newIntent()])).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });
}
