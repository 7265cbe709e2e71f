import { afterEach, describe, expect, it } from "vitest";
import { DeliveryFailedError, DeliveryPendingError } from "../delivery/errors.ts";
import { deliveryHarness, eventually, type Harness } from "../delivery/testing/harness.ts";
import { isHeldForOperator } from "../message/intent.ts";
import { StoreUnavailableError } from "../state/errors.ts";
import { outboundMessage } from "../testing/fixtures.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

describe("runtime.send", () => {
  it("delivers every chunk and returns a receipt with every platform id", async () => {
    h = await deliveryHarness({ adapter: { maxLength: 5 } });
    const receipt = await h.runtime.send(outboundMessage("hello world!"));
    expect(h.platform.visible("chat-1").map((m) => m.text)).toEqual(["hello", " worl", "d!"]);
    expect(receipt.platformMessageIds).toEqual(h.platform.visible("chat-1").map((m) => m.id));
    expect(receipt.primaryPlatformMessageId).toBe(receipt.platformMessageIds[0]);
    const [intent] = await h.store.listIntents();
    expect(intent).toMatchObject({ status: "sent", attempt: 1, receipt });
  });

  it("returns the first receipt for a repeated idempotency key without sending again", async () => {
    h = await deliveryHarness();
    const first = await h.runtime.send(outboundMessage("once"), { idempotencyKey: "reply:7001" });
    const again = await h.runtime.send(outboundMessage("once"), { idempotencyKey: "reply:7001" });
    expect(again).toEqual(first);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["once"]);
  });

  it("fails closed under durability required when the intent cannot be written: nothing is sent", async () => {
    h = await deliveryHarness();
    await h.store.close();
    await expect(h.runtime.send(outboundMessage("lost?"))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(h.platform.calls).toEqual([]);
  });

  it("falls through to a direct send under best_effort when the store is down", async () => {
    h = await deliveryHarness();
    await h.store.close();
    const receipt = await h.runtime.send(outboundMessage("direct"), { durability: "best_effort" });
    expect(h.platform.visible().map((m) => m.text)).toEqual(["direct"]);
    expect(receipt.platformMessageIds).toHaveLength(1);
  });

  it("sends directly without an intent under durability disabled", async () => {
    h = await deliveryHarness();
    await h.runtime.send(outboundMessage("no intent"), { durability: "disabled" });
    expect(h.platform.visible()).toHaveLength(1);
    expect(await h.store.listIntents()).toEqual([]);
  });

  it("keeps the reason of a permanent rejection and does not retry it", async () => {
    h = await deliveryHarness();
    h.platform.failNext({
      type: "status",
      status: 403,
      code: "forbidden",
      description: "bot was kicked from the group",
    });
    const error = await h.runtime.send(outboundMessage("hi")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryFailedError);
    const [intent] = await h.store.listIntents();
    expect(intent).toMatchObject({
      status: "failed",
      attempt: 1,
      failure: { kind: "permission", evidence: "not_dispatched" },
    });
    expect(intent?.failure?.message).toContain("bot was kicked from the group");
    expect(h.platform.visible()).toEqual([]);
  });

  it("edits every part, sends fresh when the message is gone, and deletes", async () => {
    h = await deliveryHarness();
    const receipt = await h.runtime.send(outboundMessage("draft"));
    await h.runtime.edit(receipt, outboundMessage("final"));
    expect(h.platform.visible().map((m) => m.text)).toEqual(["final"]);
    // An edit answered "not modified" is success.
    await h.runtime.edit(receipt, outboundMessage("final"), { idempotencyKey: "edit-same" });
    await h.runtime.delete(receipt, outboundMessage(""));
    expect(h.platform.visible()).toEqual([]);
    const again = await h.runtime.edit(receipt, outboundMessage("back"), {
      idempotencyKey: "edit-gone",
    });
    expect(h.platform.visible().map((m) => m.text)).toEqual(["back"]);
    expect(again.primaryPlatformMessageId).not.toBe(receipt.primaryPlatformMessageId);
  });

  it("delivers through withSendContext with a pre-rendered batch", async () => {
    h = await deliveryHarness();
    const receipt = await h.runtime.withSendContext(outboundMessage("ctx"), async (ctx) => {
      const rendered = await ctx.render();
      return ctx.send(rendered);
    });
    expect(h.platform.visible().map((m) => m.id)).toEqual(receipt.platformMessageIds);
  });
});

describe("C01: unknown after send (Telegram-like: no idempotency key)", () => {
  it("never resends blindly: one message exists and the intent is held in unknown_after_send", async () => {
    h = await deliveryHarness({ adapter: { unknownSendPolicy: "hold" } });
    h.platform.failNext({ type: "accept-then-drop" });
    const error = await h.runtime
      .send(outboundMessage("id 500"), { waitMs: 2_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryPendingError);
    expect(h.platform.visible().map((m) => m.text)).toEqual(["id 500"]);
    const [intent] = await h.store.listIntents();
    expect(intent?.status).toBe("unknown_after_send");
    expect(intent && isHeldForOperator(intent)).toBe(true);
    expect(intent?.failure).toMatchObject({ evidence: "maybe_sent" });
  });

  it("control: ECONNREFUSED on attempt 1, success on attempt 2 → one retry, one message", async () => {
    h = await deliveryHarness();
    h.platform.failNext({ type: "refuse" });
    const pending = h.runtime.send(outboundMessage("retry me"), { waitMs: 5_000 });
    const [intent] = await eventually(
      () => h?.store.listIntents() ?? [],
      (l) => l[0]?.status === "pending" && l[0].attempt === 1,
    );
    expect(intent?.failure).toMatchObject({ kind: "transient", evidence: "not_dispatched" });
    h.clock.advance(1_000);
    h.runtime.worker.kick();
    const receipt = await pending;
    expect(h.platform.visible().map((m) => m.text)).toEqual(["retry me"]);
    expect(receipt.platformMessageIds).toHaveLength(1);
    expect((await h.store.listIntents())[0]).toMatchObject({ status: "sent", attempt: 2 });
  });

  it("reconciles against the platform when the adapter can: found → sent, exactly one message", async () => {
    h = await deliveryHarness({ adapter: { reconcile: true } });
    h.platform.failNext({ type: "accept-then-drop" });
    const receipt = await h.drive(h.runtime.send(outboundMessage("reconciled")));
    expect(h.platform.visible()).toHaveLength(1);
    expect(receipt.platformMessageIds).toEqual([h.platform.visible()[0]?.id]);
  });

  it("replays with the same key on a natively idempotent channel: exactly one message", async () => {
    h = await deliveryHarness({ adapter: { idempotent: true }, platform: { idempotent: true } });
    h.platform.failNext({ type: "accept-then-drop" });
    await h.drive(h.runtime.send(outboundMessage("nonce")));
    expect(h.platform.visible()).toHaveLength(1);
  });

  it("replays under at_least_once and reports the duplicate it may cause", async () => {
    h = await deliveryHarness({ adapter: { unknownSendPolicy: "at_least_once" } });
    h.platform.failNext({ type: "accept-then-drop" });
    await h.drive(h.runtime.send(outboundMessage("twice?")));
    expect(h.platform.visible().map((m) => m.text)).toEqual(["twice?", "twice?"]);
  });
});
