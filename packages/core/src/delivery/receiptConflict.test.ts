import { afterEach, describe, expect, it } from "vitest";
import type { ReceiptConflictDetail } from "../message/failure.ts";
import { isHeldForOperator } from "../message/intent.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { DeliveryPendingError } from "./errors.ts";
import { deliveryHarness, eventually, type Harness } from "./testing/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

/** Counts the runtime's `receipt_conflict` events per channel, as the gateway's metric does. */
function conflictCounter(harness: Harness) {
  const perChannel = new Map<string, number>();
  const seen: ReceiptConflictDetail[] = [];
  harness.runtime.worker.on((event) => {
    if (event.type !== "receipt_conflict") return;
    perChannel.set(event.intent.channel, (perChannel.get(event.intent.channel) ?? 0) + 1);
    seen.push(event.conflict);
  });
  return { perChannel, seen };
}

describe("C40: a platform message id is the receipt of one unit", () => {
  it("holds intent #2 as unknown_after_send when the platform answers it with #1's id; #1 stays sent", async () => {
    h = await deliveryHarness();
    const metric = conflictCounter(h);
    const first = await h.runtime.send(outboundMessage("first"));
    h.platform.failNext({ type: "repeat-id" }, 1, "send");
    const error = await h.runtime
      .send(outboundMessage("second"), { waitMs: 2_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryPendingError);
    const [one, two] = await h.store.listIntents();
    expect(one).toMatchObject({ status: "sent", receipt: first });
    expect(two?.status).toBe("unknown_after_send");
    expect(two && isHeldForOperator(two)).toBe(true);
    expect(two?.receipt).toBeUndefined();
    expect(two?.failure).toMatchObject({
      kind: "conflict",
      evidence: "maybe_sent",
      reason: "receipt_conflict",
      receiptConflict: {
        platformMessageId: first.primaryPlatformMessageId,
        partIndex: 0,
        heldByIntentId: one?.id,
        heldByPartIndex: 0,
      },
    });
    expect(two?.failure?.message).toContain("herald queue retry");
    const hit = await h.store.lookupReceipt({
      channel: "qa",
      accountId: "bot-1",
      platformMessageId: first.primaryPlatformMessageId ?? "",
    });
    expect(hit?.intentId).toBe(one?.id);
    expect(metric.perChannel.get("qa")).toBe(1);
    // The platform shows only the first text: the second never landed.
    expect(h.platform.visible().map((m) => m.text)).toEqual(["first"]);
  });

  it("holds a batch whose later part is answered with its first part's id, keeping the first part", async () => {
    h = await deliveryHarness({ adapter: { maxLength: 5 } });
    const metric = conflictCounter(h);
    const original = h.platform.call.bind(h.platform);
    let sends = 0;
    h.platform.call = (c) => {
      if (c.op === "send" && ++sends === 2) h?.platform.failNext({ type: "repeat-id" }, 1, "send");
      return original(c);
    };
    const error = await h.runtime
      .send(outboundMessage("hello world"), { waitMs: 2_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryPendingError);
    const [intent] = await h.store.listIntents();
    const firstId = h.platform.visible()[0]?.id;
    expect(intent?.status).toBe("unknown_after_send");
    expect(intent?.partialReceipt?.parts.map((p) => p.platformMessageId)).toEqual([firstId]);
    expect(intent?.failure).toMatchObject({
      reason: "receipt_conflict",
      receiptConflict: { platformMessageId: firstId, partIndex: 1, heldByIntentId: intent?.id },
    });
    expect(metric.seen).toHaveLength(1);
  });

  it("holds a reconciled send whose lookup found another intent's message (same text)", async () => {
    h = await deliveryHarness({ adapter: { reconcile: true } });
    const metric = conflictCounter(h);
    const first = await h.runtime.send(outboundMessage("same words"));
    const adapter = h.runtime.adapter("qa", "bot-1");
    if (!adapter) throw new Error("no qa adapter");
    // A lookup by content (as channels without client keys do) matches the first message.
    adapter.send.reconcileUnknownSend = async (_ctx, units) => ({
      status: "sent",
      parts: units.map((u) => ({
        platformMessageId: first.primaryPlatformMessageId ?? "",
        kind: "text" as const,
        index: u.index,
      })),
    });
    h.platform.failNext({ type: "accept-then-drop" });
    await h.runtime.enqueue(outboundMessage("same words"));
    // Past the settle delay the lookup runs (the clock is driven), and the store refuses its id.
    const [one, two] = await h.drive(
      eventually(
        () => h?.store.listIntents() ?? [],
        (l) => l[1]?.failure?.reason === "receipt_conflict",
      ),
    );
    expect(one?.status).toBe("sent");
    expect(two).toMatchObject({
      status: "unknown_after_send",
      failure: { reason: "receipt_conflict", receiptConflict: { heldByIntentId: one?.id } },
    });
    expect(two && isHeldForOperator(two)).toBe(true);
    expect(metric.seen).toHaveLength(1);
  });

  it("an edit keeps its message's id: the same unit, not a conflict", async () => {
    h = await deliveryHarness();
    const metric = conflictCounter(h);
    const receipt = await h.runtime.send(outboundMessage("draft"));
    const edited = await h.runtime.edit(receipt, outboundMessage("final"));
    expect(edited.platformMessageIds).toEqual(receipt.platformMessageIds);
    const intents = await h.store.listIntents();
    expect(intents.map((i) => i.status)).toEqual(["sent", "sent"]);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["final"]);
    expect(metric.seen).toHaveLength(0);
  });
});
