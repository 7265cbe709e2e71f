/**
 * Conformance: the outbound receipt registry and tombstone retention.
 *
 * @module
 */
import { describe, expect, it } from "vitest";
import { gatewayFailureOrigin } from "../../message/origin.ts";
import { receiptFromParts } from "../../message/receipt.ts";
import { IntentConflictError, ReceiptConflictError } from "../../state/errors.ts";
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

    // CASES C56: two herald bots (two accounts) share the store; bot B recognises bot A's
    // tagged output by the platform message, whichever account sent it.
    it("C56 anyAccount: finds a platform message whichever account of the channel sent it", async () => {
      const s = ctx.store();
      const origin = gatewayFailureOrigin("agent_failed_before_reply");
      const ids: string[] = [];
      for (const accountId of ["bot-a", "bot-c", "bot-e"]) {
        const message = outboundMessage("notice", { accountId, origin });
        const [r] = await s.enqueueIntents([newIntent(message)]);
        ids.push(r?.intent.id ?? "");
        await sendThrough(s, r?.intent.id ?? "", [`chat-1:${accountId}-1`]);
      }
      const hit = await s.lookupReceipt({
        channel: "qa",
        accountId: "bot-b",
        platformMessageId: "chat-1:bot-c-1",
        anyAccount: true,
      });
      expect(hit).toMatchObject({ intentId: ids[1], accountId: "bot-c", origin });
      expect(
        await s.lookupReceipt({
          channel: "qa",
          accountId: "bot-b",
          platformMessageId: "chat-1:bot-c-1",
        }),
        "without anyAccount the lookup stays per account",
      ).toBeUndefined();
      expect(
        await s.lookupReceipt({
          channel: "slack",
          platformMessageId: "chat-1:bot-c-1",
          anyAccount: true,
        }),
      ).toBeUndefined();
      expect(
        await s.lookupReceipt({
          channel: "qa",
          platformMessageId: "chat-1:nope",
          anyAccount: true,
        }),
      ).toBeUndefined();
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

  // DESIGN §12 "Receipt ids are unique" (CASES C40): enforced by the store, in the transaction
  // that writes the receipt, so it holds across processes.
  describe("receipt ids are unique", () => {
    const sending = async (s: MessageStateStore, extra: Parameters<typeof newIntent>[1] = {}) => {
      const [r] = await s.enqueueIntents([newIntent(undefined, extra)]);
      const id = r?.intent.id ?? "";
      await s.transitionIntents([{ id, from: "pending", to: "sending" }]);
      return id;
    };
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e,
      );

    it("refuses a receipt id another intent holds, writes nothing, and names both", async () => {
      const s = ctx.store();
      const [first] = await s.enqueueIntents([newIntent()]);
      const one = first?.intent.id ?? "";
      await sendThrough(s, one, ["held-1"]);
      const two = await sending(s);
      const error = await refusal(
        s.transitionIntents([
          {
            id: two,
            from: "sending",
            to: "committing",
            patch: { receipt: textReceipt(["held-1"]) },
          },
          { id: two, from: "committing", to: "sent" },
        ]),
      );
      expect(error).toBeInstanceOf(ReceiptConflictError);
      expect(error).toMatchObject({
        code: "HERALD_RECEIPT_CONFLICT",
        intentId: two,
        channel: "qa",
        accountId: "bot-1",
        platformMessageId: "held-1",
        partIndex: 0,
        heldByIntentId: one,
        heldByPartIndex: 0,
      });
      expect((error as ReceiptConflictError).detail()).toEqual({
        platformMessageId: "held-1",
        partIndex: 0,
        heldByIntentId: one,
        heldByPartIndex: 0,
      });
      const after = await s.getIntent(two);
      expect(after?.status).toBe("sending");
      expect(after?.receipt).toBeUndefined();
      expect(
        (await s.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: "held-1" }))
          ?.intentId,
      ).toBe(one);
      // A partial receipt too, and the whole call is refused, not only its receipt.
      const partial = await refusal(
        s.updateIntent(
          two,
          { status: "sending" },
          { partialReceipt: textReceipt(["held-1"]), attempt: 3 },
        ),
      );
      expect(partial).toBeInstanceOf(ReceiptConflictError);
      expect((await s.getIntent(two))?.attempt).toBe(0);
    });

    it("lets the same unit commit its own id again (re-commit after a crash or reconcile)", async () => {
      const s = ctx.store();
      const id = await sending(s);
      await s.updateIntent(id, { status: "sending" }, { partialReceipt: textReceipt(["own-1"]) });
      await s.updateIntent(id, { status: "sending" }, { partialReceipt: textReceipt(["own-1"]) });
      const sent = (
        await s.transitionIntents([
          {
            id,
            from: "sending",
            to: "committing",
            patch: { receipt: textReceipt(["own-1", "own-2"]) },
          },
          { id, from: "committing", to: "sent", patch: { partialReceipt: null } },
        ])
      ).at(-1);
      expect(sent).toMatchObject({
        status: "sent",
        receipt: { platformMessageIds: ["own-1", "own-2"] },
      });
    });

    it("refuses one id answered for two units of one intent", async () => {
      const s = ctx.store();
      const id = await sending(s);
      const error = await refusal(
        s.transitionIntents([
          {
            id,
            from: "sending",
            to: "committing",
            patch: { receipt: textReceipt(["dup", "dup"]) },
          },
        ]),
      );
      expect(error).toBeInstanceOf(ReceiptConflictError);
      expect(error).toMatchObject({ partIndex: 1, heldByIntentId: id, heldByPartIndex: 0 });
      expect((await s.getIntent(id))?.status).toBe("sending");
    });

    it("lets an edit keep its message's id and a live final adopt its previews", async () => {
      const s = ctx.store();
      const [first] = await s.enqueueIntents([newIntent()]);
      const one = first?.intent.id ?? "";
      const original = textReceipt(["e-1", "e-2"]);
      await sendThrough(s, one, ["e-1", "e-2"]);
      const edit = await sending(s, { operation: { kind: "edit", receipt: original } });
      const edited = (
        await s.transitionIntents([
          {
            id: edit,
            from: "sending",
            to: "committing",
            patch: { receipt: textReceipt(["e-1", "e-2", "e-3"]) },
          },
          { id: edit, from: "committing", to: "sent" },
        ])
      ).at(-1);
      expect(edited?.status).toBe("sent");
      // The registry keeps naming the intent that sent the message; the new part is the edit's.
      const owner = async (pid: string) =>
        (await s.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: pid }))
          ?.intentId;
      expect(await owner("e-1")).toBe(one);
      expect(await owner("e-3")).toBe(edit);
      const final = await sending(s);
      const [adopted] = await s.transitionIntents([
        {
          id: final,
          from: "sending",
          to: "committing",
          patch: { receipt: textReceipt(["e-2"]), adoptedMessageIds: ["e-2"] },
        },
      ]);
      expect(adopted?.status).toBe("committing");
      expect(await owner("e-2")).toBe(one);
    });

    it('claims nothing for an id the platform did not give (""), and scopes by channel and account', async () => {
      const s = ctx.store();
      const a = await sending(s);
      const b = await sending(s);
      const other = await sending(s, { message: outboundMessage("x", { accountId: "bot-2" }) });
      for (const [id, pid] of [
        [a, ""],
        [b, ""],
      ] as const) {
        await s.transitionIntents([
          { id, from: "sending", to: "committing", patch: { receipt: textReceipt([pid]) } },
        ]);
      }
      await s.transitionIntents([
        { id: a, from: "committing", to: "sent" },
        { id: b, from: "committing", to: "sent" },
      ]);
      const [mine] = await s.enqueueIntents([newIntent()]);
      await sendThrough(s, mine?.intent.id ?? "", ["scoped"]);
      const [elsewhere] = await s.transitionIntents([
        {
          id: other,
          from: "sending",
          to: "committing",
          patch: { receipt: textReceipt(["scoped"]) },
        },
      ]);
      expect(elsewhere?.status).toBe("committing");
    });

    it("applies a call of several intents all or none when one receipt is refused", async () => {
      const s = ctx.store();
      const [first] = await s.enqueueIntents([newIntent()]);
      await sendThrough(s, first?.intent.id ?? "", ["taken"]);
      const a = await sending(s);
      const b = await sending(s);
      const error = await refusal(
        s.transitionIntents([
          { id: a, from: "sending", to: "committing", patch: { receipt: textReceipt(["fresh"]) } },
          { id: b, from: "sending", to: "committing", patch: { receipt: textReceipt(["taken"]) } },
        ]),
      );
      expect(error).toBeInstanceOf(ReceiptConflictError);
      expect(error).not.toBeInstanceOf(IntentConflictError);
      expect((await s.getIntent(a))?.status).toBe("sending");
      expect(
        await s.lookupReceipt({ channel: "qa", accountId: "bot-1", platformMessageId: "fresh" }),
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
