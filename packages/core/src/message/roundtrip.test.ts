import { describe, expect, it } from "vitest";
import type { RenderedMessageBatch } from "./batch.ts";
import type { MessageCapabilities } from "./capabilities.ts";
import type { DeliveryFailure } from "./failure.ts";
import type { DurableSendIntent } from "./intent.ts";
import type { LiveMessageState } from "./live.ts";
import type { ChannelMessage } from "./message.ts";
import { gatewayFailureOrigin } from "./origin.ts";
import type { MessageDurabilityPolicy, ReceiveAckPolicy } from "./policy.ts";
import { receiptFromParts } from "./receipt.ts";

const receipt = receiptFromParts(
  [
    { platformMessageId: "1", kind: "media", index: 0, threadId: "42", raw: { file_id: "f" } },
    { platformMessageId: "2", kind: "text", index: 1, replyToId: "9", url: "https://t.me/c/1/2" },
  ],
  { sentAt: 1_700_000_000_000, editToken: "e", deleteToken: "d" },
);

const message: ChannelMessage = {
  id: "m1",
  channel: "telegram",
  accountId: "bot",
  direction: "outbound",
  target: {
    kind: "thread",
    id: "-100",
    parentId: "-100",
    threadId: "42",
    spaceId: "s",
    label: "Topic",
    nativeChannelId: "n",
  },
  sender: { id: "u1", displayName: "Ada", isBot: false, isSelf: false },
  body: { markdown: "**hi** 😀 \u{1F469}\u200D\u{1F4BB}", plain: "hi" },
  attachments: [
    {
      kind: "image",
      url: "https://e/x.png",
      caption: "c",
      sizeBytes: 10,
      mimeType: "image/png",
      name: "x.png",
    },
  ],
  relation: {
    kind: "reply",
    inboundMessageId: "in1",
    replyToId: "9",
    threadId: "42",
    quote: { text: "q", offsetUtf16: 3 },
    placement: "broadcast",
  },
  origin: gatewayFailureOrigin("model_login_expired"),
  timestamp: 1_700_000_000_000,
  platformMessageId: "p1",
  threadAnchor: { threadId: "spaces/S/threads/T" },
  recipient: { userId: "U1", teamId: "T1" },
  mentions: { self: true, users: ["u2"] },
  raw: { nested: [1, "two", null, { three: true }] },
};

const batch: RenderedMessageBatch = {
  idempotencyKey: "k",
  atomicity: "best_effort_parts",
  units: [
    {
      index: 0,
      kind: "text",
      payload: { text: "a", entities: [{ type: "bold", offset: 0, length: 1 }] },
      required: true,
    },
  ],
};

const live: LiveMessageState = {
  mode: "partial",
  receipt,
  visibleSince: 5,
  canFinalizeInPlace: true,
  lastRenderedHash: "abc",
  staleAfterMs: 60_000,
  frozen: [{ platformMessageId: "1", text: "c1" }, { text: "no id" }],
};

const failure: DeliveryFailure = {
  kind: "rate_limit",
  evidence: "not_dispatched",
  retryAfterMs: 17_000,
  message: "Too Many Requests",
  platformCode: "429",
  at: 3,
};

const intent: DurableSendIntent = {
  id: "i1",
  idempotencyKey: "k",
  channel: "telegram",
  accountId: "bot",
  message,
  operation: { kind: "edit", receipt },
  orderingKey: '["telegram","bot","-100","42"]',
  seq: 7,
  batch,
  liveState: live,
  status: "unknown_after_send",
  attempt: 2,
  nextAttemptAt: 10,
  leaseOwner: "w1",
  leaseExpiresAt: 20,
  receipt,
  partialReceipt: receipt,
  failure,
  turnId: "t1",
  createdAt: 1,
  updatedAt: 2,
};

const capabilities: MessageCapabilities = {
  text: { maxLength: 4096, chunking: true },
  attachments: { upload: true, remoteUrl: true, voice: true, maxCaptionLength: 1024 },
  threads: { reply: true, topic: true, inDirect: false },
  live: { edit: true, delete: true, editRate: { limit: 1, intervalMs: 1_000 } },
  delivery: {
    idempotencyKey: false,
    retryAfter: true,
    unknownSendPolicy: "hold",
    freshSendOnEditNotFound: true,
  },
  rateLimits: [
    { scope: "chat", limit: 1, intervalMs: 1_000 },
    { scope: "chat", limit: 20, intervalMs: 60_000, targetKinds: ["group"] },
  ],
};

const acks: ReceiveAckPolicy[] = [
  { kind: "immediate", reason: "webhook-timeout" },
  { kind: "after-record" },
  { kind: "after-durable-send" },
  { kind: "manual" },
];
const durability: MessageDurabilityPolicy[] = ["required", "best_effort", "disabled"];

describe("JSON round-trip of every domain type", () => {
  it.each([
    ["ChannelMessage", message],
    ["MessageReceipt", receipt],
    ["RenderedMessageBatch", batch],
    ["LiveMessageState", live],
    ["DeliveryFailure", failure],
    ["DurableSendIntent", intent],
    ["MessageCapabilities", capabilities],
    ["ReceiveAckPolicy", acks],
    ["MessageDurabilityPolicy", durability],
    ["MessageOrigin", [gatewayFailureOrigin("missing_api_key"), { source: "platform" }]],
  ])("%s survives JSON.stringify → JSON.parse unchanged", (_name, value) => {
    expect(JSON.parse(JSON.stringify(value))).toStrictEqual(value);
  });
});
