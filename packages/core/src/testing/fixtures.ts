/**
 * Message and receipt fixtures for tests of stores, adapters and lifecycles.
 *
 * @module
 */
import type { ChannelMessage, MessageTarget } from "../message/message.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { receiptFromParts } from "../message/receipt.ts";
import type { NewSendIntent } from "../state/types.ts";

let counter = 0;

/** An outbound text message to `target` (default: group chat `chat-1` on channel `qa`). */
export function outboundMessage(
  text = "hello",
  overrides: Omit<Partial<ChannelMessage>, "target"> & { target?: Partial<MessageTarget> } = {},
): ChannelMessage {
  counter += 1;
  const { target, ...rest } = overrides;
  return {
    id: `msg-${process.pid}-${counter}`,
    channel: "qa",
    accountId: "bot-1",
    direction: "outbound",
    body: { markdown: text },
    ...rest,
    target: { kind: "group", id: "chat-1", ...target },
  };
}

/** A new intent for `message` with a unique idempotency key unless one is given. */
export function newIntent(
  message: ChannelMessage = outboundMessage(),
  extra: Partial<NewSendIntent> = {},
): NewSendIntent {
  counter += 1;
  return { idempotencyKey: `key-${process.pid}-${Date.now()}-${counter}`, message, ...extra };
}

/** A receipt with one text part per id, primary = first. */
export function textReceipt(ids: readonly string[], sentAt = Date.now()): MessageReceipt {
  return receiptFromParts(
    ids.map((platformMessageId, index) => ({ platformMessageId, kind: "text" as const, index })),
    { sentAt },
  );
}
