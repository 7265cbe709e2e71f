// reconcileUnknownSend looks units up by their client key on the real API (the fake): a stored
// unit comes back as its receipt part, a missing one as not_sent — never a guess.
import { unitIdempotencyKey } from "@herald/plugin-sdk/channel-message";
import { captureLogger } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpChatAdapter, httpChatConfigSchema, keyOf } from "./index.ts";
import { ALICE, FAKE_BOT, FakeHttpChat } from "./testing/index.ts";

let fake: FakeHttpChat;
afterEach(() => fake?.close());

async function setup() {
  fake = await FakeHttpChat.start();
  const chat = fake.createChat("group");
  const adapter = createHttpChatAdapter(
    httpChatConfigSchema.parse({
      baseUrl: fake.url,
      tokenEnv: "T",
      webhookSecretEnv: "H",
      maxLength: 50,
    }),
    FAKE_BOT.token,
  );
  const ctx = (key: string) => ({
    channel: "httpchat",
    message: {
      id: "m1",
      channel: "httpchat",
      direction: "outbound" as const,
      target: { kind: "group" as const, id: chat },
      body: { markdown: "hello" },
    },
    attempt: 2,
    idempotencyKey: key,
    unitIdempotencyKey: unitIdempotencyKey(key, 0),
    signal: new AbortController().signal,
    log: captureLogger([]),
  });
  const unit = (index: number) => ({
    index,
    kind: "text" as const,
    payload: `part ${index}`,
    required: true,
  });
  return { chat, adapter, ctx, unit };
}

describe("reconcileUnknownSend", () => {
  it("finds a unit the API stored under its key and answers not_sent for one it has not", async () => {
    const { chat, adapter, ctx, unit } = await setup();
    const stored = fake.state.post({
      chat,
      text: "part 0",
      author: { ...FAKE_BOT, bot: true },
      key: keyOf(unitIdempotencyKey("k1", 0)),
    });
    fake.state.post({
      chat,
      text: "someone else",
      author: ALICE,
      key: `${keyOf(unitIdempotencyKey("k1", 1))}x`, // another key
    });
    const reconcile = adapter.send.reconcileUnknownSend;
    expect(await reconcile?.(ctx("k1"), [unit(0), unit(1)])).toEqual({
      status: "sent",
      parts: [{ platformMessageId: stored.message.id, kind: "text", index: 0 }],
    });
    expect(await reconcile?.(ctx("k2"), [unit(0)])).toEqual({ status: "not_sent" });
  });

  it("throws (unresolved) when the lookup itself fails, instead of answering not_sent", async () => {
    const { adapter, ctx, unit } = await setup();
    fake.server.faults.failNext(
      { kind: "status", status: 503, code: "unavailable", description: "down" },
      { op: "read" },
    );
    await expect(adapter.send.reconcileUnknownSend?.(ctx("k3"), [unit(0)])).rejects.toThrow(/503/);
  });
});
