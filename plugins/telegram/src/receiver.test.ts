/**
 * The long-polling receiver against the fake Bot API: offsets confirm only finished work,
 * skipped and malformed updates, topic round trips (C20), callback answers, failures.
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeTelegram.ts";

describe("polling receiver", () => {
  it("confirms an update to Telegram only once its work is done, while later ones flow past it", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const b = await openBench({
      handler: async (ctx) => {
        if (ctx.input.body?.markdown === "slow") await gate;
      },
    });
    const slowChat = b.dm().chat;
    const fastChat = b.dm().chat;
    await b.startReceiver();
    const slow = b.fake.userPost({ chat: slowChat.id, text: "slow" }).update.update_id;
    const fast = b.fake.userPost({ chat: fastChat.id, text: "fast" }).update.update_id;
    await eventually(
      () => b.outcomes.map((o) => o.status),
      (s) => s.includes("processed"),
      { what: "the fast update" },
    );
    await new Promise((resolve) => setTimeout(resolve, 200)); // a few polls while pinned
    const queue = b.fake.queue();
    expect(queue.confirmedBelow).toBeLessThanOrEqual(slow);
    expect(queue.pending.map((u) => u.update_id)).toEqual([slow, fast]);
    expect(b.handled.map((h) => h.input.body?.markdown)).toEqual(["slow", "fast"]);
    release();
    await eventually(
      () => queue.confirmedBelow,
      (n) => n > fast,
      { what: "both confirmed" },
    );
    expect(
      await b.store.getWatermark({ channel: "telegram", accountId: "main", source: "updates" }),
    ).toBe(String(fast));
    expect(b.handled).toHaveLength(2);
  });

  it("follows Telegram's id sequence when it restarts lower after a week idle (H14-10): nothing is dropped", async () => {
    const b = await openBench();
    const { chat } = b.dm();
    const key = { channel: "telegram", accountId: "main", source: "updates" };
    await b.store.setWatermark(key, "1000"); // a bot that ran a while ago
    await b.startReceiver();
    const queue = b.fake.queue();
    queue.restartSequence(37);
    b.fake.userPost({ chat: chat.id, text: "after a quiet week" }); // update_id 37
    await eventually(
      () => b.handled.map((h) => h.input.body?.markdown),
      (t) => t.includes("after a quiet week"),
      { what: "the update below the watermark to be processed" },
    );
    await eventually(
      () => b.store.getWatermark(key),
      (w) => w === "37",
      { what: "the watermark to follow the new sequence" },
    );
    expect(
      b.logLines.some((l) => l.includes('"level":"warn"') && l.includes("sequence restarted")),
    ).toBe(true);
    b.fake.userPost({ chat: chat.id, text: "and the next one" }); // 38
    await eventually(
      () => queue.confirmedBelow,
      (n) => n > 38,
      { what: "38 confirmed" },
    );
    expect(b.handled.map((h) => h.input.body?.markdown)).toEqual([
      "after a quiet week",
      "and the next one",
    ]);
  });

  it("reports its health: up once polling, down (no 401 retried forever) when the token is revoked", async () => {
    const b = await openBench();
    const receiver = await b.startReceiver();
    await eventually(
      () => receiver.health?.().state,
      (s) => s === "up",
      { what: "up after the first getUpdates" },
    );
    b.fake.failNext(
      { kind: "status", status: 401, description: "Unauthorized" },
      { op: "poll", times: 1 },
    );
    b.fake.userPost({ chat: b.dm().chat.id, text: "wake the long poll" });
    await eventually(
      () => receiver.health?.(),
      (h) => h?.state === "down",
      { what: "down after the 401" },
    );
    expect(receiver.health?.().detail).toContain("token rejected (401)");
  });

  it("hands service messages and update kinds it does not handle to herald (ignored and counted), and confirms them", async () => {
    const b = await openBench();
    const { chat } = b.dm();
    await b.startReceiver();
    b.fake.pushUpdate({ my_chat_member: { chat: { id: chat.id, type: "private" } } });
    b.fake.pushUpdate({
      message: {
        message_id: 9,
        date: 1,
        chat: { id: chat.id, type: "private" },
        pinned_message: {},
      },
    });
    const last = b.fake.userPost({ chat: chat.id, text: "real" }).update.update_id;
    await eventually(
      () => b.fake.queue().confirmedBelow,
      (n) => n > last,
      { what: "everything confirmed" },
    );
    expect(b.handled.map((h) => h.input.body?.markdown)).toEqual(["real"]);
    expect(b.outcomes.filter((o) => o.status === "ignored")).toEqual([
      { status: "ignored", reason: "unsupported_update", detail: "my_chat_member" },
      { status: "ignored", reason: "service_message", detail: "message.pinned_message" },
    ]);
  });

  it("dead-letters a malformed update with its field path and confirms it", async () => {
    const b = await openBench();
    await b.startReceiver();
    const bad = b.fake.pushUpdate({
      message: { message_id: 1, date: 1, chat: { id: "oops", type: "private" }, text: "hi" },
    });
    await eventually(
      () => b.outcomes.map((o) => o.status),
      (s) => s.includes("dead_lettered"),
      { what: "the dead letter" },
    );
    const [letter] = await b.runtime.deadLetters.list();
    expect(letter?.error).toMatchObject({ path: "message.chat.id" });
    await eventually(
      () => b.fake.queue().confirmedBelow,
      (n) => n > bad.update_id,
      { what: "the bad update confirmed" },
    );
  });

  it("answers a message in topic 42 with two chunks, a photo and typing, all in topic 42 (C20a)", async () => {
    const b = await openBench({
      handler: async (ctx) => {
        const typing = b.runtime.typing({ channel: "telegram", target: ctx.input.target });
        await b.runtime.send(
          b.message(ctx.input.target, "answer ".repeat(700), {
            attachments: [{ kind: "image", platformFileId: "AgAD-graph", caption: "graph" }],
            relation: {
              kind: "reply",
              replyToId: ctx.input.platformMessageId as string,
              ...(ctx.input.target.threadId ? { threadId: ctx.input.target.threadId } : {}),
            },
          }),
        );
        await typing.stop();
      },
    });
    const { chat } = b.forum();
    b.fake.createTopic(chat.id, "Help", 42);
    await b.startReceiver();
    const question = b.fake.userPost({ chat: chat.id, thread: 42, text: "help?" });
    await eventually(
      () => b.fake.messages(chat.id, { thread: 42, authorId: FAKE_BOT.id }),
      (v) => v.length === 3,
      { what: "three answers in the topic" },
    );
    expect(b.handled[0]?.input.target).toMatchObject({ kind: "thread", threadId: "42" });
    const answers = b.fake.messages(chat.id, { thread: 42, authorId: FAKE_BOT.id });
    expect(answers.map((m) => b.fake.message(m.id)?.message_thread_id)).toEqual([42, 42, 42]);
    expect(answers[0]?.replyTo).toBe(String(question.message.message_id));
    expect(b.fake.messages(chat.id, { thread: null })).toEqual([]);
    expect(b.fake.server.calls.some((c) => c.op === "typing")).toBe(true);
  });

  it("answers a message in the General topic at the top level, never in a DM (C20b)", async () => {
    const b = await openBench({
      handler: (ctx) =>
        b.runtime.send(b.message(ctx.input.target, "hello from the bot")).then(() => {}),
    });
    const { chat } = b.forum();
    await b.startReceiver();
    b.fake.userPost({ chat: chat.id, text: "hi in General" });
    await eventually(
      () => b.fake.messages(chat.id, { authorId: FAKE_BOT.id }),
      (v) => v.length === 1,
      { what: "the answer" },
    );
    const [answer] = b.fake.messages(chat.id, { authorId: FAKE_BOT.id });
    expect(answer?.thread).toBeUndefined();
    expect(b.fake.message(answer?.id as string)).not.toHaveProperty("message_thread_id");
    expect(b.fake.state.messages().filter((m) => m.chat === String(ALICE.id))).toEqual([]);
  });

  it("answers a pressed inline button once the update is taken (H23: an action, handled once)", async () => {
    const b = await openBench();
    const clicks: string[] = [];
    b.runtime.onAction((a) => {
      clicks.push(a.actionId);
    });
    const { chat } = b.dm();
    await b.startReceiver();
    b.fake.pushUpdate({
      callback_query: {
        id: "cb-1",
        from: ALICE,
        chat_instance: "1",
        data: "yes",
        message: { message_id: 5, date: 1, chat: { id: chat.id, type: "private" } },
      },
    });
    await eventually(
      () => b.fake.server.calls.filter((c) => c.path.endsWith("/answerCallbackQuery")).length,
      (n) => n === 1,
      { what: "answerCallbackQuery" },
    );
    await eventually(
      () => clicks.length,
      (n) => n === 1,
      { what: "the click handled" },
    );
    expect(clicks).toEqual(["yes"]);
    expect(b.handled).toEqual([]);
  });

  it("keeps polling after getUpdates fails (a 502, a 409 conflict)", async () => {
    const b = await openBench();
    const { chat } = b.dm();
    b.fake.failNext({ kind: "status", status: 502 }, { op: "poll" });
    b.fake.failNext(
      {
        kind: "status",
        status: 409,
        description: "Conflict: terminated by other getUpdates request",
      },
      { op: "poll" },
    );
    await b.startReceiver();
    b.fake.userPost({ chat: chat.id, text: "still there?" });
    await eventually(
      () => b.handled.length,
      (n) => n === 1,
      { what: "the message after the failures" },
    );
    expect(b.logLines.some((l) => l.includes("getUpdates conflict (409)"))).toBe(true);
  });
});
