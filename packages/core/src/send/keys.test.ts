/**
 * Keys per operation (DESIGN §3 "Keys"; issue H14 item 4): default keys are namespaced by
 * operation, channel and account; a key reused for another operation or payload throws
 * `IdempotencyConflictError`; every platform call has its own unit key. Asserted on the fake
 * platform, which (like Matrix txnIds) applies a keyed edit or delete only once per key.
 */
import { afterEach, describe, expect, it } from "vitest";
import { IdempotencyConflictError } from "../delivery/errors.ts";
import { deliveryHarness, type Harness } from "../delivery/testing/harness.ts";
import {
  defaultIdempotencyKey,
  defaultLiveKey,
  editKey,
  unitIdempotencyKey,
} from "../message/keys.ts";
import { outboundMessage } from "../testing/fixtures.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

const texts = () => h?.platform.visible().map((m) => m.text) ?? [];

describe("default keys are per operation", () => {
  it("edit and delete of a message with the same id change the platform (not the send's receipt)", async () => {
    h = await deliveryHarness({ platform: { idempotent: true }, adapter: { idempotent: true } });
    const message = outboundMessage("draft");
    const receipt = await h.runtime.send(message);
    const edited = await h.runtime.edit(receipt, { ...message, body: { markdown: "final" } });
    expect(texts()).toEqual(["final"]);
    expect(edited.platformMessageIds).toEqual(receipt.platformMessageIds);
    await h.runtime.edit(receipt, { ...message, body: { markdown: "final, v2" } });
    expect(texts()).toEqual(["final, v2"]);
    await h.runtime.delete(receipt, message);
    expect(texts()).toEqual([]);
    const keys = (await h.store.listIntents()).map((i) => i.idempotencyKey.split(":")[0]);
    expect(keys).toEqual(["send", "edit", "edit", "delete"]);
  });

  it("the same send again returns the first receipt; the same edit again changes nothing", async () => {
    h = await deliveryHarness();
    const message = outboundMessage("once");
    const first = await h.runtime.send(message);
    expect(await h.runtime.send(message)).toEqual(first);
    const next = { ...message, body: { markdown: "twice" } };
    await h.runtime.edit(first, next);
    await h.runtime.edit(first, next);
    expect(texts()).toEqual(["twice"]);
    expect(await h.store.listIntents()).toHaveLength(2);
  });

  it("namespaces default keys by operation, channel and account", () => {
    const message = outboundMessage("x", { id: "m-1" });
    const receipt = {
      platformMessageIds: ["7"],
      primaryPlatformMessageId: "7",
      parts: [],
      sentAt: 0,
    };
    expect(defaultIdempotencyKey({ kind: "send" }, message)).toBe("send:qa:bot-1:m-1");
    expect(defaultIdempotencyKey({ kind: "delete", receipt }, message)).toBe(
      "delete:qa:bot-1:chat-1::7",
    );
    expect(defaultIdempotencyKey({ kind: "edit", receipt }, message)).toBe(
      "edit:qa:bot-1:chat-1::7:1",
    );
    const inThread = { ...message, target: { ...message.target, threadId: "t:9" } };
    expect(editKey(inThread, receipt, 3)).toBe("edit:qa:bot-1:chat-1:t%3A9:7:3");
    expect(defaultLiveKey(message)).toBe("live:qa:bot-1:m-1");
    expect(defaultIdempotencyKey({ kind: "send" }, { ...message, accountId: "bot-2" })).toBe(
      "send:qa:bot-2:m-1",
    );
    expect(unitIdempotencyKey("send:qa:bot-1:m-1", 2)).toBe("send:qa:bot-1:m-1#2");
  });
});

describe("IdempotencyConflictError", () => {
  it("a send key reused for an edit throws and changes nothing", async () => {
    h = await deliveryHarness();
    const receipt = await h.runtime.send(outboundMessage("original"), { idempotencyKey: "k1" });
    const error = await h.runtime
      .edit(receipt, outboundMessage("changed"), { idempotencyKey: "k1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect(error).toMatchObject({ code: "HERALD_IDEMPOTENCY_CONFLICT", field: "operation" });
    expect((error as Error).message).toMatch(/"k1".*"send" before, "edit" now/);
    expect(texts()).toEqual(["original"]);
  });

  it("a key reused with other text or for another chat throws, naming the field", async () => {
    h = await deliveryHarness();
    await h.runtime.send(outboundMessage("reply A"), { idempotencyKey: "reply:1" });
    await expect(
      h.runtime.send(outboundMessage("reply B"), { idempotencyKey: "reply:1" }),
    ).rejects.toMatchObject({ field: "message.body" });
    await expect(
      h.runtime.enqueue(outboundMessage("reply A", { target: { id: "chat-2" } }), {
        idempotencyKey: "reply:1",
      }),
    ).rejects.toMatchObject({ field: "message.target" });
    await expect(
      h.runtime.send(outboundMessage("reply A"), { idempotencyKey: "reply:1" }),
    ).resolves.toMatchObject({ platformMessageIds: [h.platform.visible()[0]?.id] });
    expect(texts()).toEqual(["reply A"]);
  });
});

describe("a unit key per platform call", () => {
  it("two edits inside one withSendContext both land", async () => {
    h = await deliveryHarness({ platform: { idempotent: true }, adapter: { idempotent: true } });
    const message = outboundMessage("v1");
    await h.runtime.withSendContext(message, async (ctx) => {
      const receipt = await ctx.send();
      await ctx.edit(receipt, { ...(await ctx.render()), units: [textUnit("v2")] });
      await ctx.edit(receipt, { ...(await ctx.render()), units: [textUnit("v3")] });
    });
    expect(texts()).toEqual(["v3"]);
  });

  it("every part of a delete is deleted (each part has its own key)", async () => {
    h = await deliveryHarness({
      platform: { idempotent: true },
      adapter: { idempotent: true, maxLength: 4 },
    });
    const message = outboundMessage("aaaabbbbcccc");
    const receipt = await h.runtime.send(message);
    expect(texts()).toEqual(["aaaa", "bbbb", "cccc"]);
    await h.runtime.delete(receipt, message);
    expect(texts()).toEqual([]);
    const deletes = h.platform.calls.filter((c) => c.op === "delete");
    expect(new Set(deletes.map((c) => ("key" in c ? c.key : "")))).toHaveProperty("size", 3);
  });
});

function textUnit(text: string) {
  return { index: 0, kind: "text" as const, payload: { text }, required: true };
}

describe('keyMatch: "slot" (a turn reply re-run after a crash)', () => {
  it("returns the reply already decided when the text now differs, and sends nothing new", async () => {
    h = await deliveryHarness();
    const first = await h.runtime.send(outboundMessage("the first answer"), {
      idempotencyKey: "reply:qa:bot-1:in-1:1",
      keyMatch: "slot",
    });
    // The handler ran again (its model wrote other text): same slot, same receipt, one message.
    const again = await h.runtime.send(outboundMessage("a different answer"), {
      idempotencyKey: "reply:qa:bot-1:in-1:1",
      keyMatch: "slot",
    });
    expect(again).toEqual(first);
    expect(texts()).toEqual(["the first answer"]);
    expect(await h.store.listIntents()).toHaveLength(1);
  });

  it("still refuses the slot key for another target", async () => {
    h = await deliveryHarness();
    await h.runtime.send(outboundMessage("answer"), { idempotencyKey: "slot-1", keyMatch: "slot" });
    const elsewhere = outboundMessage("answer");
    const moved = { ...elsewhere, target: { ...elsewhere.target, id: "another-chat" } };
    await expect(
      h.runtime.send(moved, { idempotencyKey: "slot-1", keyMatch: "slot" }),
    ).rejects.toMatchObject({ name: IdempotencyConflictError.name, field: "message.target" });
    expect(texts()).toEqual(["answer"]);
  });
});
