/**
 * Sending through herald's runtime and the real grammY client to the fake Bot API; every
 * assertion is on what the fake shows.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliveryFailedError } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { withTelegramOptions } from "./render.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeTelegram.ts";

const idOf = (ref: string | undefined) => Number(ref?.slice(ref.lastIndexOf(":") + 1));

describe("sending to Telegram", () => {
  it("sends text with entities and no parse_mode; the receipt names the visible message (C18)", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const receipt = await b.runtime.send(b.message(target, "Sure! Step 1 - **done**."));
    const [shown] = b.fake.messages(chat.id);
    expect(shown?.text).toBe("Sure! Step 1 - done.");
    expect(b.fake.message(idOf(receipt.primaryPlatformMessageId))).toMatchObject({
      text: "Sure! Step 1 - done.",
      entities: [{ type: "bold", offset: 15, length: 4 }],
    });
    expect(receipt.platformMessageIds).toEqual([`${chat.id}:${shown?.id}`]);
  });

  it("splits a 9000-unit text into three messages of at most 4096 UTF-16 units, every id in the receipt", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const text = "word ".repeat(1800).trim();
    const receipt = await b.runtime.send(b.message(target, text));
    const shown = b.fake.messages(chat.id);
    expect(shown).toHaveLength(3);
    for (const m of shown) expect(m.text.length).toBeLessThanOrEqual(4096);
    expect(
      shown
        .map((m) => m.text)
        .join(" ")
        .replace(/\s+/g, " "),
    ).toBe(text);
    expect(receipt.platformMessageIds).toEqual(shown.map((m) => `${chat.id}:${m.id}`));
  });

  it("replies with reply_parameters on the first part only", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const question = b.fake.userPost({ chat: chat.id, text: "tell me a long story" });
    await b.runtime.send(
      b.message(target, "chapter ".repeat(700), {
        relation: { kind: "reply", replyToId: `${chat.id}:${question.message.message_id}` },
      }),
    );
    const answers = b.fake.messages(chat.id, { authorId: FAKE_BOT.id });
    expect(answers).toHaveLength(2);
    expect(answers.map((m) => m.replyTo)).toEqual([String(question.message.message_id), undefined]);
  });

  it("sends into forum topic 42 with message_thread_id on every part, media and typing included (C20a)", async () => {
    const b = await openBench();
    const { chat, target } = b.forum();
    const topic = b.fake.createTopic(chat.id, "Billing", 42);
    const inTopic = {
      ...target,
      kind: "thread" as const,
      parentId: target.id,
      threadId: String(topic),
    };
    const typing = b.runtime.typing({ channel: "telegram", target: inTopic });
    expect(b.fake.state.isTyping(String(chat.id), { thread: String(topic) })).toBe(false);
    await expect
      .poll(() =>
        b.fake.state.isTyping(String(chat.id), {
          thread: String(topic),
          userId: String(FAKE_BOT.id),
        }),
      )
      .toBe(true);
    // The last part is throttled once: the retry (a replay) must stay in the topic too.
    b.fake.failNext({ kind: "rate_limit", retryAfterMs: 100 }, { op: "send", skip: 2 });
    await b.runtime.enqueue(
      b.message(inTopic, "part ".repeat(1000), {
        attachments: [{ kind: "image", platformFileId: "AgAD-chart", caption: "the chart" }],
      }),
      { idempotencyKey: "topic" },
    );
    const intent = await b.settled("topic");
    await typing.stop();
    expect(intent.status).toBe("sent");
    expect(intent.attempt).toBe(2);
    const inThread = b.fake.messages(chat.id, { thread: topic, authorId: FAKE_BOT.id });
    const elsewhere = b.fake.messages(chat.id, { thread: null });
    expect(inThread.map((m) => m.text.slice(0, 9))).toEqual([
      "the chart",
      "part part",
      "part part",
    ]);
    expect(intent.receipt?.platformMessageIds).toEqual(inThread.map((m) => `${chat.id}:${m.id}`));
    expect(elsewhere).toEqual([]);
    for (const m of inThread)
      expect(b.fake.message(m.id)).toMatchObject({ message_thread_id: topic });
  });

  it("answers in the General topic without a thread id and never in a DM (C20b)", async () => {
    const b = await openBench();
    const { chat, target } = b.forum();
    const general = { ...target, threadId: "1" }; // General's id: must not be sent
    await b.runtime.send(b.message(general, "hello General"));
    const top = b.fake.messages(chat.id, { thread: null, authorId: FAKE_BOT.id });
    expect(top.map((m) => m.text)).toEqual(["hello General"]);
    expect(b.fake.message(top[0]?.id as string)).not.toHaveProperty("message_thread_id");
    expect([...b.fake.chats.values()].filter((c) => c.type === "private")).toEqual([]);
  });

  it("fails a send to a topic that is gone as not_found, and sends nothing anywhere else", async () => {
    const b = await openBench();
    const { chat, target } = b.forum();
    const gone = { ...target, kind: "thread" as const, parentId: target.id, threadId: "999" };
    const error = await b.runtime.send(b.message(gone, "into the void")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryFailedError);
    expect((error as DeliveryFailedError).failure).toMatchObject({
      kind: "not_found",
      evidence: "not_dispatched",
    });
    expect((error as DeliveryFailedError).failure?.message).toContain("message thread not found");
    expect(b.fake.messages(chat.id)).toEqual([]);
    expect(b.fake.state.messages()).toEqual([]);
  });

  it("sends a photo by file_id, a document uploaded from a path, and a voice note", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const path = join(tmpdir(), `herald-telegram-${process.pid}.txt`);
    writeFileSync(path, "report");
    const receipt = await b.runtime.send(
      b.message(target, "", {
        attachments: [
          { kind: "image", platformFileId: "AgAD-photo", caption: "**chart**" },
          { kind: "file", path, name: "report.txt" },
          { kind: "voice", url: "https://example.com/note.ogg" },
        ],
      }),
    );
    const [photo, doc, voice] = receipt.platformMessageIds.map((r) => b.fake.message(idOf(r)));
    expect(photo).toMatchObject({
      photo: [{ file_id: "AgAD-photo" }],
      caption: "chart",
      caption_entities: [{ type: "bold", offset: 0, length: 5 }],
    });
    expect(doc).toMatchObject({ document: { file_id: "upload:report.txt" } });
    expect(voice).toMatchObject({ voice: { file_id: "https://example.com/note.ogg" } });
    expect(receipt.parts.map((p) => p.kind)).toEqual(["media", "media", "voice"]);
    expect(b.fake.messages(chat.id)).toHaveLength(3);
  });

  it("sends a photo with a 1500-unit caption in topic 42 as photo + text, reply on the first, keyboard on the last (C19)", async () => {
    const b = await openBench();
    const { chat, target } = b.forum();
    const topic = b.fake.createTopic(chat.id, "Reports", 42);
    const question = b.fake.userPost({ chat: chat.id, thread: topic, text: "the chart please" });
    const inTopic = {
      ...target,
      kind: "thread" as const,
      parentId: target.id,
      threadId: String(topic),
    };
    const caption = "words ".repeat(250).trim(); // 1499 units
    const keyboard = [[{ text: "Thanks", callback_data: "thanks" }]];
    const receipt = await b.runtime.send(
      withTelegramOptions(
        b.message(inTopic, caption, {
          attachments: [{ kind: "image", platformFileId: "AgAD-chart" }],
          relation: { kind: "reply", replyToId: `${chat.id}:${question.message.message_id}` },
        }),
        { inlineKeyboard: keyboard },
      ),
    );
    const sent = receipt.platformMessageIds.map((r) => b.fake.message(idOf(r)) ?? {});
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({
      photo: [{ file_id: "AgAD-chart" }],
      message_thread_id: topic,
    });
    expect(sent[0]).not.toHaveProperty("caption");
    expect(sent[0]?.reply_to_message).toMatchObject({ message_id: question.message.message_id });
    expect(sent[0]).not.toHaveProperty("reply_markup");
    expect(sent[1]).toMatchObject({
      text: caption,
      message_thread_id: topic,
      reply_markup: { inline_keyboard: keyboard },
    });
    expect(sent[1]).not.toHaveProperty("reply_to_message");
    expect(b.fake.messages(chat.id, { thread: topic, authorId: FAKE_BOT.id })).toHaveLength(2);
  });

  it("edits text and captions in place and deletes; an identical edit is a successful no-op (C14)", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const text = await b.runtime.send(b.message(target, "first"));
    const photo = await b.runtime.send(
      b.message(target, "", {
        attachments: [{ kind: "image", platformFileId: "p", caption: "old" }],
      }),
    );
    await b.runtime.edit(text, b.message(target, "second"));
    await b.runtime.edit(
      photo,
      b.message(target, "", {
        attachments: [{ kind: "image", platformFileId: "p", caption: "new" }],
      }),
    );
    await b.runtime.edit(text, b.message(target, "second"), { idempotencyKey: "same-again" });
    const [t, p] = b.fake.messages(chat.id);
    expect(t?.history).toEqual(["first", "second"]);
    expect(p?.text).toBe("new");
    await b.runtime.delete(photo, b.message(target, ""));
    expect(b.fake.messages(chat.id).map((m) => m.text)).toEqual(["second"]);
  });

  it("fails a send to a user who blocked the bot as permission, with the reason kept", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    chat.blocked = true;
    await b.runtime.enqueue(b.message(target, "hello?"), { idempotencyKey: "blocked" });
    const intent = await b.settled("blocked");
    expect(intent.status).toBe("failed");
    expect(intent.failure).toMatchObject({ kind: "permission", evidence: "not_dispatched" });
    expect(intent.failure?.message).toContain("bot was blocked by the user");
    expect(intent.attempt).toBe(1);
  });

  it("addresses a user by chat id: the user's private chat id is their user id", async () => {
    const b = await openBench();
    const chat = b.fake.createChat({ type: "private", user: ALICE });
    await b.runtime.send(b.message({ kind: "direct", id: String(ALICE.id) }, "hi Alice"));
    expect(b.fake.messages(chat.id).map((m) => m.text)).toEqual(["hi Alice"]);
  });
});
