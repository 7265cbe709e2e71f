/**
 * Conformance: the outbound receipt registry and tombstone retention.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { gatewayFailureOrigin } from "../../message/origin.ts";
import { receiptFromParts } from "../../message/receipt.ts";
import type { MessageStateStore } from "../../state/MessageStateStore.ts";
import { newIntent, outboundMessage, textReceipt } from "../fixtures.ts";
import type { StoreContext } from "./harness.ts";

async function sendThrough(s: MessageStateStore, id: string, ids: string[]) {
  await s.transitionIntents([{ id, from: "pending", to: "sending" }]);
  await s.transitionIntents([
    { id, from: "sending", to: "committing", patch: { receipt: textReceipt(ids) } },
  ]);
  return (await s.transitionIntents([{ id, from: "committing", to: "sent" }]))[0];
}

export function registryTests(ctx: StoreContext): void {
  describe("outbound receipt registry", () => {
    it("finds the intent by every platform id of a multi-part receipt", async () => {
      const s = ctx.store();
      const message = outboundMessage("long", { origin: gatewayFailureOrigin("missing_api_key") });
      const [r] = await s.enqueueIntents([newIntent(message, { turnId: "turn-9" })]);
      const id = r?.intent.id ?? "";
      await sendThrough(s, id, ["m1", "m2", "m3"]);
      for (const [index, pid] of ["m1", "m2", "m3"].entries()) {
        const hit = await s.lookupReceipt({
          channel: "qa",
          accountId: "bot-1",
          platformMessageId: pid,
        });
        expect(hit).toMatchObject({
          intentId: id,
          partIndex: index,
          turnId: "turn-9",
          origin: message.origin,
        });
        expect(hit?.receipt?.platformMessageIds).toEqual(["m1", "m2", "m3"]);
      }
    });

    it("indexes parts that landed before the whole batch (partial receipts)", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([newIntent()]);
      const id = r?.intent.id ?? "";
      await s.transitionIntents([{ id, from: "pending", to: "sending" }]);
      const partial = receiptFromParts([{ platformMessageId: "u0", kind: "text", index: 0 }]);
      await s.updateIntent(id, { status: "sending" }, { partialReceipt: partial });
      expect(
        (await s.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: "u0" }))
          ?.intentId,
      ).toBe(id);
    });

    it("scopes lookups by channel and account", async () => {
      const s = ctx.store();
      const [r] = await s.enqueueIntents([newIntent()]);
      await sendThrough(s, r?.intent.id ?? "", ["same-id"]);
      expect(
        await s.lookupReceipt({ channel: "qa", accountId: "bot-2", platformMessageId: "same-id" }),
      ).toBeUndefined();
      expect(
        await s.lookupReceipt({
          channel: "slack",
          accountId: "bot-1",
          platformMessageId: "same-id",
        }),
      ).toBeUndefined();
      expect(
        await s.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: "nope" }),
      ).toBeUndefined();
    });
  });

  describe("tombstone retention", () => {
    it("purges only terminal intents older than the cutoff, in bounded batches", async () => {
      const s = ctx.store();
      const rs = await s.enqueueIntents([newIntent(), newIntent(), newIntent(), newIntent()]);
      const [a, b, c] = rs.map((r) => r.intent.id);
      await sendThrough(s, a ?? "", ["pa"]);
      await s.transitionIntents([{ id: b ?? "", from: "pending", to: "failed" }]);
      await s.transitionIntents([{ id: c ?? "", from: "pending", to: "cancelled" }]);
      const cutoff = Date.now() + 1;
      expect(await s.purgeTerminalIntents({ before: cutoff, limit: 2 })).toBe(2);
      expect(await s.purgeTerminalIntents({ before: cutoff, limit: 2 })).toBe(1);
      expect(await s.purgeTerminalIntents({ before: cutoff, limit: 2 })).toBe(0);
      const left = await s.listIntents();
      expect(left.map((i) => i.status)).toEqual(["pending"]);
      expect(
        await s.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: "pa" }),
      ).toBeUndefined();
    });

    it("keeps tombstones inside the retention window and frees the key after purge", async () => {
      const s = ctx.store();
      const input = newIntent();
      const [r] = await s.enqueueIntents([input]);
      await sendThrough(s, r?.intent.id ?? "", ["t1"]);
      expect(await s.purgeTerminalIntents({ before: 0, limit: 100 })).toBe(0);
      expect((await s.enqueueIntents([input]))[0]?.created).toBe(false);
      await s.purgeTerminalIntents({ before: Date.now() + 1, limit: 100 });
      expect((await s.enqueueIntents([input]))[0]?.created).toBe(true);
    });
  });
}
