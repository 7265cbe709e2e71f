/**
 * Threads on the QA channel (DESIGN §7–8): the thread anchor its normalize sets, and reply
 * placement as the QA platform shows it.
 */
import {
  type ChannelMessage,
  placeReply,
  type ReplyPlacement,
} from "@herald/plugin-sdk/channel-message";
import {
  createMessageRuntime,
  type MessageRuntime,
  SqliteStateStore,
} from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createQaAdapter } from "./index.ts";
import { createReceive, QA_CHANNEL_ID } from "./receive.ts";
import { testConfig } from "./testing/harness.ts";
import { DEFAULT_QA_BOT, QaPlatform } from "./testing/platform/QaPlatform.ts";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const wire = (over: Record<string, unknown>) => ({
  seq: 1,
  type: "message.created",
  message: {
    id: "17",
    chat_id: "room",
    chat_type: "group",
    text: "hi",
    author: { id: "alice", is_bot: false },
    created_at: 1_000,
    ...over,
  },
});

describe("qa threads", () => {
  it("anchors a thread on the message itself, or on the thread the user wrote in, DMs included", async () => {
    const receive = createReceive("herald");
    const ctx = { channel: QA_CHANNEL_ID, receivedAt: 1_001 };
    const anchor = async (raw: unknown) =>
      ((await receive.normalize(raw, ctx)) as ChannelMessage).threadAnchor;
    expect(await anchor(wire({}))).toEqual({ threadId: "17" });
    expect(await anchor(wire({ thread_id: "12" }))).toEqual({ threadId: "12" });
    expect(await anchor(wire({ chat_type: "direct" }))).toEqual({ threadId: "17" });
    const adapter = createQaAdapter(
      testConfig({
        baseUrl: "http://127.0.0.1:1",
        token: "t:x",
        maxLength: 100,
        delivery: "idempotent",
      }),
      "t:x",
    );
    expect(adapter.capabilities.threads).toMatchObject({ reply: true, inDirect: true });
  });

  it("honours reply placement: quote by default, inline without a quote, thread under the message", async () => {
    const platform = await QaPlatform.start();
    cleanup.push(() => platform.close());
    const store = new SqliteStateStore({ path: ":memory:" });
    const config = testConfig({
      baseUrl: platform.url,
      token: DEFAULT_QA_BOT.token,
      maxLength: 4_000,
      delivery: "idempotent",
    });
    const adapter = createQaAdapter(config, DEFAULT_QA_BOT.token);
    const runtime: MessageRuntime = createMessageRuntime({
      store,
      adapters: [adapter],
      delivery: { pollIntervalMs: 5 },
      live: { recoveryIntervalMs: 0 },
    });
    await runtime.start();
    cleanup.push(async () => {
      await runtime.stop(1_000);
      await store.close();
    });
    platform.createChat({ id: "room", type: "group" });
    const posted = platform.post({ chat: "room", text: "question", author: { id: "alice" } });
    const inbound = (await adapter.receive?.normalize(
      { seq: platform.lastSeq, type: "message.created", message: platform.toWire(posted) },
      { channel: QA_CHANNEL_ID, receivedAt: Date.now() },
    )) as ChannelMessage;
    const reply = (text: string, placement?: ReplyPlacement) =>
      runtime.send(
        {
          id: `out-${text}`,
          channel: QA_CHANNEL_ID,
          direction: "outbound",
          body: { markdown: text },
          ...placeReply(inbound, placement),
        },
        { idempotencyKey: `reply:${text}` },
      );
    await reply("default");
    await reply("quoted", "quote");
    await reply("inline", "inline");
    await reply("threaded", "thread");
    await reply("broadcast", "broadcast");
    const shown = platform.state
      .messages({ chat: "room" })
      .filter((m) => m.author.bot)
      .map((m) => [m.text, m.replyTo ?? null, m.thread ?? null]);
    expect(shown).toEqual([
      ["default", posted.id, null],
      ["quoted", posted.id, null],
      ["inline", null, null],
      ["threaded", null, posted.id],
      ["broadcast", null, posted.id],
    ]);
  });
});
