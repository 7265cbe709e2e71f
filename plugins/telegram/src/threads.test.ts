/**
 * Threads on Telegram (DESIGN §7–8): a thread anchor only inside a forum topic, and reply
 * placement as the fake Bot API shows it.
 */
import {
  type ChannelMessage,
  placeReply,
  type ReplyPlacement,
} from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { FAKE_BOT } from "./testing/FakeTelegram.ts";

type Bench = Awaited<ReturnType<typeof openBench>>;

async function inbound(b: Bench, update: unknown): Promise<ChannelMessage> {
  const ctx = { channel: "telegram", receivedAt: Date.now() };
  return (await b.adapter.receive?.normalize(update, ctx)) as ChannelMessage;
}

describe("Telegram threads", () => {
  it("anchors a thread on the forum topic a message is in, and nowhere else", async () => {
    const b = await openBench();
    const { chat } = b.forum();
    const topic = b.fake.createTopic(chat.id, "Billing", 42);
    const inTopic = await inbound(
      b,
      b.fake.userPost({ chat: chat.id, thread: topic, text: "a" }).update,
    );
    expect(inTopic.threadAnchor).toEqual({ threadId: String(topic) });
    const general = await inbound(b, b.fake.userPost({ chat: chat.id, text: "b" }).update);
    expect(general.threadAnchor).toBeUndefined();
    const dm = await inbound(b, b.fake.userPost({ chat: b.dm().chat.id, text: "c" }).update);
    expect(dm.threadAnchor).toBeUndefined();
    expect(b.adapter.capabilities.threads).toMatchObject({ reply: true, inDirect: false });
  });

  it("honours reply placement: reply_parameters for quote (the default) only, the topic for thread", async () => {
    const b = await openBench();
    const { chat } = b.forum();
    const topic = b.fake.createTopic(chat.id, "Billing", 42);
    const question = b.fake.userPost({ chat: chat.id, thread: topic, text: "why?" });
    const root = await inbound(b, question.update);
    const reply = (text: string, placement?: ReplyPlacement) =>
      b.runtime.send(b.message(root.target, text, placeReply(root, placement)), {
        idempotencyKey: `reply:${text}`,
      });
    for (const p of [undefined, "quote", "inline", "thread"] as const)
      await reply(p ?? "default", p);
    const shown = b.fake
      .messages(chat.id, { authorId: FAKE_BOT.id })
      .map((m) => [m.text, m.replyTo ?? null, m.thread ?? null]);
    const asked = String(question.message.message_id);
    expect(shown).toEqual([
      ["default", asked, String(topic)],
      ["quote", asked, String(topic)],
      ["inline", null, String(topic)],
      ["thread", null, String(topic)],
    ]);
  });
});
