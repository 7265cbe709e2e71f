/**
 * Default edit/delete keys name the conversation (DESIGN §3 "Keys"; issue H14 item 4): on
 * platforms whose message ids are per chat (Telegram `message_id`), message 1 of chat A and
 * message 1 of chat B are different messages with different keys, and a reused delete key for
 * another chat is a conflict, not the other chat's receipt.
 */
import { afterEach, describe, expect, it } from "vitest";
import { IdempotencyConflictError } from "../delivery/errors.ts";
import { deliveryHarness, type Harness } from "../delivery/testing/harness.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { outboundMessage } from "../testing/fixtures.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => {});
  h = undefined;
});

/** A receipt for per-chat message id "1" (same id in both chats, as on Telegram). */
const receiptOf = (id: string): MessageReceipt => ({
  primaryPlatformMessageId: id,
  platformMessageIds: [id],
  parts: [{ platformMessageId: id, kind: "text", index: 0 }],
  sentAt: 0,
});

const calls = (op: "edit" | "delete") => h?.platform.calls.filter((c) => c.op === op).length ?? 0;

describe("edit/delete keys across chats with the same per-chat message id", () => {
  it("delete of message 1 in chat-2 after delete of message 1 in chat-1 reaches the platform", async () => {
    h = await deliveryHarness();
    await h.runtime
      .delete(receiptOf("1"), outboundMessage("", { target: { id: "chat-1" } }))
      .catch(() => {});
    const afterFirst = calls("delete");
    await h.runtime
      .delete(receiptOf("1"), outboundMessage("", { target: { id: "chat-2" } }))
      .catch(() => {});
    expect(afterFirst).toBe(1);
    expect(calls("delete")).toBe(2);
  });

  it("the same edit text on message 1 of two chats: both reach the platform", async () => {
    h = await deliveryHarness();
    await h.runtime
      .edit(receiptOf("1"), outboundMessage("fixed", { target: { id: "chat-1" } }))
      .catch(() => {});
    let second: unknown;
    await h.runtime
      .edit(receiptOf("1"), outboundMessage("fixed", { target: { id: "chat-2" } }))
      .catch((e: unknown) => {
        second = e;
      });
    expect((second as Error | undefined)?.name).not.toBe("IdempotencyConflictError");
    expect(calls("edit")).toBe(2);
  });

  it("one delete key reused for message 1 of another chat throws, naming the target", async () => {
    h = await deliveryHarness();
    const options = { idempotencyKey: "cleanup:1" };
    await h.runtime
      .delete(receiptOf("1"), outboundMessage("", { target: { id: "chat-1" } }), options)
      .catch(() => {});
    const error = await h.runtime
      .delete(receiptOf("1"), outboundMessage("", { target: { id: "chat-2" } }), options)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect((error as IdempotencyConflictError).message).toContain("message.target");
    expect(calls("delete")).toBe(1);
  });
});
