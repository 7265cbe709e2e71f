import {
  type ChannelMessage,
  type InboundEvent,
  placeReply,
} from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { slackConfigSchema } from "./config.ts";
import { createSlackAdapter } from "./index.ts";
import * as fixtures from "./testing/fixtures.ts";
import { ALICE, FAKE_BOT, OTHER_FAKE_BOT } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

const identity = {
  userId: FAKE_BOT.userId,
  botId: FAKE_BOT.botId,
  teamId: FAKE_BOT.teamId,
  appId: FAKE_BOT.appId,
};

function adapter(editPolicy: "ignore" | "mention-added" = "ignore") {
  return createSlackAdapter(
    slackConfigSchema.parse({ slackApiUrl: "http://127.0.0.1:9/api/", editPolicy }),
    { token: FAKE_BOT.token, identity },
  );
}

async function normalize(event: Record<string, unknown>, editPolicy?: "ignore" | "mention-added") {
  const a = adapter(editPolicy);
  const raw = fixtures.envelope(event);
  const result = await a.receive?.normalize(raw, {
    channel: "slack",
    accountId: "main",
    receivedAt: 1,
  });
  return { result, a, raw };
}

describe("normalize (Slack's documented event shapes)", () => {
  it("a person's channel message: text, sender, conversation, team + channel + ts identity", async () => {
    const { result, a, raw } = await normalize(fixtures.channelMessage);
    const m = result as ChannelMessage;
    expect(m).toMatchObject({
      id: "slack:T00000001:C00000001:1355517523.000005",
      direction: "inbound",
      accountId: "main",
      target: { kind: "group", id: "C00000001" },
      sender: { id: ALICE.id, isBot: false },
      body: { markdown: "Hello world" },
      platformMessageId: "C00000001:1355517523.000005",
      threadAnchor: { threadId: "1355517523.000005" },
      timestamp: 1_355_517_523_000,
    });
    const event = await a.receive?.classify?.(m, raw);
    expect(a.receive?.dedupeIdentity?.(m, event as never)).toBe(
      "T00000001:C00000001:1355517523.000005",
    );
    expect(event).toMatchObject({
      eventType: "message",
      isBotAuthor: false,
      isRoomish: true,
      mentionsSelf: false,
    });
  });

  it("C25: a thread reply's target and anchor are the root's ts", async () => {
    const { result } = await normalize(fixtures.threadReply);
    expect(result).toMatchObject({
      target: { kind: "thread", id: "C00000001", threadId: "1355517523.000005" },
      threadAnchor: { threadId: "1355517523.000005" },
      platformMessageId: "C00000001:1355517524.000300",
    });
  });

  it("a DM is direct; an app_mention mentions the bot and has the same identity as its message event", async () => {
    expect((await normalize(fixtures.directMessage)).result).toMatchObject({
      target: { kind: "direct", id: "D00000001" },
    });
    const mention = (await normalize(fixtures.appMention)).result as ChannelMessage;
    const message = (await normalize(fixtures.mentionMessage)).result as ChannelMessage;
    expect(mention.mentions?.self).toBe(true);
    expect(message.mentions?.self).toBe(true);
    expect(mention.id).toBe(message.id);
    expect(mention.body?.markdown).toBe(`<@${FAKE_BOT.userId}> deploy please`);
  });

  it("a reply in a DM's thread is in the DM's thread and not roomish (requireMention never drops it)", async () => {
    const { result, a, raw } = await normalize({
      ...fixtures.directMessage,
      ts: "1355517526.000001",
      thread_ts: fixtures.directMessage.ts,
    });
    const m = result as ChannelMessage;
    expect(m.target).toMatchObject({
      kind: "thread",
      id: "D00000001",
      threadId: "1355517525.000001",
    });
    expect(await a.receive?.classify?.(m, raw)).toMatchObject({ isRoomish: false });
    const inChannel = await normalize(fixtures.threadReply);
    expect(
      await inChannel.a.receive?.classify?.(inChannel.result as ChannelMessage, inChannel.raw),
    ).toMatchObject({ isRoomish: true });
  });

  it("another app's bot_message is a bot-authored message; a thread_broadcast a person's message", async () => {
    expect((await normalize(fixtures.botMessage)).result).toMatchObject({
      sender: { id: OTHER_FAKE_BOT.botId, isBot: true, displayName: "github" },
    });
    expect((await normalize(fixtures.threadBroadcast)).result).toMatchObject({
      sender: { id: ALICE.id, isBot: false },
      target: { kind: "thread", threadId: "1355517523.000005" },
    });
  });

  it("C10: its own message (user, bot id, app id, herald metadata) is flagged self; self ids from auth.test", async () => {
    const { result, a } = await normalize(fixtures.ownMessage);
    expect((result as ChannelMessage).sender?.isSelf).toBe(true);
    expect(a.receive?.selfIds?.("main")).toEqual([FAKE_BOT.userId, FAKE_BOT.botId, FAKE_BOT.appId]);
  });

  it("message_deleted and channel_join are typed events; an unknown subtype is ignored with a reason", async () => {
    expect((await normalize(fixtures.messageDeleted)).result).toMatchObject({
      kind: "event",
      type: "message_deleted",
      id: "message_deleted:T00000001:C00000001:1358878749.000002",
      platformMessageId: "C00000001:1358878749.000002",
    });
    expect((await normalize(fixtures.channelJoin)).result).toMatchObject({
      kind: "event",
      type: "member_joined",
      members: [{ id: ALICE.id }],
    });
    expect(
      (await normalize({ ...fixtures.channelMessage, subtype: "channel_topic" })).result,
    ).toEqual({
      kind: "ignore",
      reason: "service message",
      detail: "channel_topic",
    });
  });

  it("a payload with a missing field is a validation error naming the path", async () => {
    const a = adapter();
    await expect(
      a.receive?.normalize(fixtures.envelope({ type: "message", text: "no channel", ts: "1.2" }), {
        channel: "slack",
        receivedAt: 1,
      }),
    ).rejects.toThrow(/channel/);
  });

  it("hostile payloads are validation errors naming the field's path in the payload, never turns or silent ignores", async () => {
    const a = adapter();
    const ctx = { channel: "slack", receivedAt: 1 };
    const msg = { type: "message", channel: "C00000001", user: ALICE.id, text: "x" };
    const cases: Array<[unknown, string]> = [
      [fixtures.envelope({ ...msg, channel: 123, ts: "1700000000.000001" }), "event.channel"],
      [fixtures.envelope({ ...msg, ts: "abc" }), "event.ts"],
      [fixtures.envelope({ ...msg, ts: "1700000000.000001", thread_ts: "" }), "event.thread_ts"],
      [fixtures.envelope({ ...msg, ts: "1700000000.000001", text: 5 }), "event.text"],
      [
        fixtures.envelope({ ...msg, subtype: "message_changed", ts: "1700000000.000003" }),
        "event.message",
      ],
      [
        fixtures.envelope({
          ...msg,
          subtype: "message_changed",
          ts: "1700000000.000003",
          message: { text: "edited", user: ALICE.id },
        }),
        "event.message.ts",
      ],
      [[], "(root)"],
      [{ event: { type: "message" } }, "type"],
      ["not json", "(root)"],
    ];
    // Slack's ssl_check of a slash command URL is not an event, nor an error.
    expect(await a.receive?.normalize({ ssl_check: "1", token: "t" }, ctx)).toMatchObject({
      kind: "ignore",
    });
    for (const [raw, path] of cases) {
      await expect(a.receive?.normalize(raw, ctx), path).rejects.toMatchObject({
        code: "HERALD_RECEIVE_INVALID_PAYLOAD",
        path,
      });
    }
  });
});

describe("DM threads", () => {
  it("with requireMention on, a reply in a DM's thread is answered; one in a channel's thread needs the mention", async () => {
    const run = await openSlackRun(onTestFinished, {}, {}, { receive: { requireMention: true } });
    const dmId = run.fake.createChannel({ type: "im" }).id;
    const channel = run.fake.createChannel().id;
    const dmRoot = await run.fake.userPost({ channel: dmId, text: "hi" });
    await run.fake.userPost({ channel: dmId, text: "and more", threadTs: dmRoot.ts });
    const root = await run.fake.userPost({ channel, text: "root" });
    await run.fake.userPost({ channel, text: "no mention", threadTs: root.ts });
    await eventually(
      () => run.outcomes.length,
      (n) => n >= 4,
    );
    expect(run.handled.map((h) => h.input.body?.markdown)).toEqual(["hi", "and more"]);
  });
});

describe("C23: edits do not start turns", () => {
  const root = {
    ...fixtures.channelMessage,
    user: OTHER_FAKE_BOT.userId,
    bot_id: OTHER_FAKE_BOT.botId,
  };

  it("message_changed from another bot, from a human, and the thread_broadcast pair are events, never messages", async () => {
    const cases = [
      fixtures.messageChanged({ ...root, text: "Hello world!" }, root),
      fixtures.messageChanged(
        { ...fixtures.channelMessage, text: "Hello, world" },
        fixtures.channelMessage,
      ),
      fixtures.messageChanged(
        { ...fixtures.threadBroadcast, text: "also in the channel (edited)" },
        fixtures.threadBroadcast,
      ),
      fixtures.messageChanged(
        { ...fixtures.threadReply, subtype: undefined, text: "also in the channel (edited)" },
        fixtures.threadReply,
      ),
    ];
    for (const policy of ["ignore", "mention-added"] as const) {
      for (const edit of cases) {
        const { result } = await normalize(edit, policy);
        expect((result as InboundEvent).kind, JSON.stringify(edit.message)).toBe("event");
        expect((result as InboundEvent).type).toBe("message_edited");
      }
    }
    // Identical text (Slack updating reply counts or unfurls): nothing happened.
    expect((await normalize(fixtures.messageChanged(root, root))).result).toMatchObject({
      kind: "ignore",
    });
  });

  it("a human edit that adds a mention starts a turn only under editPolicy mention-added, with the original ts as its identity", async () => {
    const added = fixtures.messageChanged(
      { ...fixtures.channelMessage, text: `Hello <@${FAKE_BOT.userId}>` },
      fixtures.channelMessage,
    );
    expect(((await normalize(added, "ignore")).result as InboundEvent).kind).toBe("event");
    const m = (await normalize(added, "mention-added")).result as ChannelMessage;
    expect(m).toMatchObject({
      id: "slack:T00000001:C00000001:1355517523.000005",
      mentions: { self: true },
      body: { markdown: `Hello <@${FAKE_BOT.userId}>` },
    });
    const byBot = fixtures.messageChanged({ ...root, text: `Hello <@${FAKE_BOT.userId}>` }, root);
    expect(((await normalize(byBot, "mention-added")).result as InboundEvent).kind).toBe("event");
  });

  it("through the runtime: edits on the fake make no turn, with allowBots on", async () => {
    const run = await openSlackRun(onTestFinished, {}, {}, { receive: { allowBots: true } });
    const channel = run.fake.createChannel().id;
    const human = await run.fake.userPost({ channel, text: "old root" });
    const bot = await run.fake.userPost({ channel, text: "bot root", bot: OTHER_FAKE_BOT });
    await eventually(
      () => run.handled.length,
      (n) => n === 2,
    );
    await run.fake.userEdit(channel, bot.ts, "bot root, edited", OTHER_FAKE_BOT);
    await run.fake.userEdit(channel, human.ts, "old root, edited");
    await eventually(
      () => run.outcomes.length,
      (n) => n >= 4,
    );
    expect(run.handled).toHaveLength(2);
  });

  it("a mention added by an edit answers once, even when edited twice (mention-added)", async () => {
    const replies: string[] = [];
    const run = await openSlackRun(
      onTestFinished,
      { editPolicy: "mention-added" },
      {},
      {
        receive: { requireMention: true },
        handler: (ctx) => void replies.push(ctx.input.id),
      },
    );
    const channel = run.fake.createChannel().id;
    const m = await run.fake.userPost({ channel, text: "deploy?" });
    await run.fake.userEdit(channel, m.ts, `deploy? <@${FAKE_BOT.userId}>`);
    await run.fake.userEdit(channel, m.ts, `deploy? <@${FAKE_BOT.userId}> please`);
    await eventually(
      () => run.outcomes.length,
      (n) => n >= 3,
    );
    expect(replies).toEqual([`slack:${FAKE_BOT.teamId}:${channel}:${m.ts}`]);
  });
});

describe("C22: inbound dedupe by message identity", () => {
  it("three signed POSTs two minutes apart, new event ids, no retry headers: one turn, one reply; a new ts is processed", async () => {
    let now = Date.now();
    const clock = () => now;
    let send: (m: ChannelMessage) => Promise<unknown> = async () => {};
    const run = await openSlackRun(
      onTestFinished,
      {},
      {},
      {
        clock,
        handler: async (ctx) => {
          const address = placeReply(ctx.input);
          await send({
            id: `reply-${ctx.input.id}`,
            channel: "slack",
            accountId: "main",
            direction: "outbound",
            target: address.target,
            relation: address.relation,
            body: { markdown: "deploying" },
          });
        },
      },
    );
    send = (m) => run.runtime.send(m);
    const channel = run.fake.createChannel().id;
    const first = run.fake.addMessage({ channel, text: "deploy?", user: ALICE.id });
    const second = run.fake.addMessage({ channel, text: "deploy?", user: ALICE.id });
    const event = {
      type: "message",
      channel,
      channel_type: "channel",
      user: ALICE.id,
      text: "deploy?",
      ts: first.ts,
      team: FAKE_BOT.teamId,
    };
    const post = async (e: Record<string, unknown>, eventId: string) => {
      const body = JSON.stringify(run.fake.events.envelope(FAKE_BOT, e, eventId));
      return run.fake.events.post(FAKE_BOT, body, { timestampSeconds: Math.floor(now / 1_000) });
    };
    expect((await post(event, "Ev1"))?.status).toBe(200);
    now += 120_000;
    expect(
      (await post({ ...event, blocks: [{ type: "rich_text", elements: [] }] }, "Ev2"))?.status,
    ).toBe(200);
    now += 120_000;
    expect((await post(event, "Ev3"))?.status).toBe(200);
    // Still the same message almost a day later: the dedupe record lives ≥ 24 h.
    now += 23 * 3_600_000;
    expect((await post(event, "Ev4"))?.status).toBe(200);
    await eventually(
      () => run.outcomes.length,
      (n) => n >= 4,
    );
    expect(run.outcomes.map((o) => o.status)).toEqual([
      "processed",
      "duplicate",
      "duplicate",
      "duplicate",
    ]);
    expect(run.handled).toHaveLength(1);
    await post({ ...event, ts: second.ts }, "Ev5");
    await eventually(
      () => run.handled.length,
      (n) => n === 2,
    );
    await eventually(
      () => run.fake.messages(channel).filter((m) => m.author.bot).length,
      (n) => n === 2,
    );
    // One reply per message, each in the thread under it.
    expect(run.fake.posts.map((p) => p.threadTs)).toEqual([first.ts, second.ts]);
  });
});

describe("C10: own echoes", () => {
  it("its own posted message and the message_changed of its own edit are dropped before routing, whatever the mention setting", async () => {
    for (const requireMention of [false, true]) {
      const run = await openSlackRun(
        onTestFinished,
        {},
        {},
        { receive: { allowBots: true, requireMention } },
      );
      const channel = run.fake.createChannel().id;
      const receipt = await run.runtime.send(
        run.message("slack", { kind: "group", id: channel }, `<@${FAKE_BOT.userId}> note`),
      );
      const ts = receipt.primaryPlatformMessageId?.split(":")[1] as string;
      const stored = run.fake.message(channel, ts);
      if (!stored) throw new Error("not posted");
      await run.fake.deliverMessage(stored);
      await run.fake.userEdit(channel, ts, "note, edited", FAKE_BOT);
      await eventually(
        () => run.outcomes.length,
        (n) => n >= 2,
      );
      expect(run.outcomes.map((o) => o.status).sort()).toEqual(["dropped", "ignored"]);
      expect(run.outcomes.find((o) => o.status === "dropped")).toMatchObject({ reason: "self" });
      // Another bot follows allowBots; a human's reply still counts.
      await run.fake.userPost({ channel, text: "other bot here", bot: OTHER_FAKE_BOT });
      await run.fake.userPost({ channel, text: `<@${FAKE_BOT.userId}> thanks`, threadTs: ts });
      await eventually(
        () => run.handled.length,
        (n) => n >= (requireMention ? 1 : 2),
      );
      expect(run.handled.map((h) => h.input.sender?.id)).toEqual(
        requireMention ? [ALICE.id] : [OTHER_FAKE_BOT.userId, ALICE.id],
      );
    }
  });
});
