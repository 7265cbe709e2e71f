/**
 * Normalization edge cases on Slack's documented event shapes ([H22] item 3): escaped text
 * (only `&amp;`, `&lt;`, `&gt;` are entities, decoded once and in the right order), a thread
 * root whose `thread_ts` equals its own `ts` (a top-level message, not a reply), who counts as
 * "us" (our user, bot id or app id — each alone — not another app's bot, not a person), the
 * `<@U…|name>` mention form, and the self ids before `auth.test` answered.
 */
import type { ChannelMessage, MessageEventClass } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { slackConfigSchema } from "./config.ts";
import { createSlackAdapter } from "./index.ts";
import * as fixtures from "./testing/fixtures.ts";
import { ALICE, FAKE_BOT, OTHER_FAKE_BOT } from "./testing/index.ts";

const identity = {
  userId: FAKE_BOT.userId,
  botId: FAKE_BOT.botId,
  teamId: FAKE_BOT.teamId,
  appId: FAKE_BOT.appId,
};
const adapter = createSlackAdapter(
  slackConfigSchema.parse({ slackApiUrl: "http://127.0.0.1:9/api/" }),
  { token: FAKE_BOT.token, identity },
);

async function normalized(event: Record<string, unknown>) {
  const raw = fixtures.envelope(event);
  const message = (await adapter.receive?.normalize(raw, {
    channel: "slack",
    accountId: "main",
    receivedAt: 1,
  })) as ChannelMessage;
  const event_ = (await adapter.receive?.classify?.(message, raw)) as MessageEventClass;
  const mine = new Set(adapter.receive?.selfIds?.("main") ?? []);
  const self = (event_.authorIds ?? []).some((id) => mine.has(id));
  return { message, event: event_, self };
}

describe("escaped text", () => {
  it("&lt; &gt; &amp; are decoded once, &amp; last: an escaped entity stays an entity", async () => {
    const { message } = await normalized({
      ...fixtures.channelMessage,
      text: "a &lt;b&gt; &amp;&amp; c &amp;lt;d&amp;gt; &quot;e&quot; &#39;",
    });
    expect(message.body).toEqual({
      markdown: "a <b> && c &lt;d&gt; &quot;e&quot; &#39;",
      plain: "a <b> && c &lt;d&gt; &quot;e&quot; &#39;",
    });
  });

  it("a mention in its <@U|name> form counts; an escaped one (&lt;@U&gt;) in code does not", async () => {
    const named = await normalized({
      ...fixtures.channelMessage,
      text: `hey <@${FAKE_BOT.userId}|herald> deploy`,
    });
    expect(named.message.mentions?.self).toBe(true);
    const escaped = await normalized({
      ...fixtures.channelMessage,
      text: `see \`&lt;@${FAKE_BOT.userId}&gt;\``,
    });
    expect(escaped.message.mentions?.self).toBe(false);
    const other = await normalized({
      ...fixtures.channelMessage,
      text: `hey <@${OTHER_FAKE_BOT.userId}>`,
    });
    expect(other.message.mentions?.self).toBe(false);
  });
});

describe("threads at their boundary", () => {
  it("a root whose thread_ts equals its own ts (it has replies) is a top-level message, anchored on itself", async () => {
    const { message, event } = await normalized({
      ...fixtures.channelMessage,
      thread_ts: fixtures.channelMessage.ts,
      reply_count: 2,
    });
    expect(message.target).toEqual({ kind: "group", id: fixtures.channelMessage.channel });
    expect(message.threadAnchor).toEqual({ threadId: fixtures.channelMessage.ts });
    expect(event.isRoomish).toBe(true);
  });

  it("the same root in a DM is direct; a reply there is a thread of the DM, not roomish", async () => {
    const root = await normalized({
      ...fixtures.directMessage,
      thread_ts: fixtures.directMessage.ts,
    });
    expect(root.message.target).toEqual({ kind: "direct", id: "D00000001" });
    const reply = await normalized({
      ...fixtures.directMessage,
      ts: "1355517526.000001",
      thread_ts: fixtures.directMessage.ts,
    });
    expect(reply.message.target).toEqual({
      kind: "thread",
      id: "D00000001",
      parentId: "D00000001",
      threadId: fixtures.directMessage.ts,
    });
    expect(reply.event.isRoomish).toBe(false);
  });

  it("a D… channel without channel_type is a DM; a C… one a group", async () => {
    const { channel_type: _t, ...noType } = fixtures.directMessage;
    expect((await normalized(noType)).message.target.kind).toBe("direct");
    const { channel_type: _c, ...channelNoType } = fixtures.channelMessage;
    expect((await normalized(channelNoType)).message.target.kind).toBe("group");
  });
});

describe("who counts as us", () => {
  it("our user id alone, our bot id alone, our app id alone: each is us", async () => {
    const base = { ...fixtures.channelMessage, text: "echo" };
    const { user: _u, ...noUser } = base;
    for (const event of [
      { ...base, user: FAKE_BOT.userId },
      { ...noUser, subtype: "bot_message", bot_id: FAKE_BOT.botId },
      { ...noUser, subtype: "bot_message", bot_id: "B0OTHER0001", app_id: FAKE_BOT.appId },
    ]) {
      const { message, self } = await normalized(event);
      expect(message.sender?.isSelf).toBe(true);
      expect(self).toBe(true);
    }
  });

  it("another app's bot, a person, a person's message with another app's id: not us", async () => {
    const bot = await normalized(fixtures.botMessage);
    expect(bot.self).toBe(false);
    expect(bot.message.sender).not.toHaveProperty("isSelf");
    expect(bot.event).toMatchObject({
      isBotAuthor: true,
      authorIds: [OTHER_FAKE_BOT.botId, OTHER_FAKE_BOT.appId],
    });
    const person = await normalized(fixtures.channelMessage);
    expect(person.self).toBe(false);
    expect(person.event).toMatchObject({ isBotAuthor: false, authorIds: [ALICE.id] });
    // herald's metadata from another app (another herald) is not ours.
    const otherHerald = await normalized({
      ...fixtures.botMessage,
      metadata: fixtures.ownMessage.metadata,
    });
    expect(otherHerald.self).toBe(false);
    expect(otherHerald.message.sender).not.toHaveProperty("isSelf");
  });
});

async function raw(body: unknown, accountId: string | null = "main", a = adapter) {
  return a.receive?.normalize(body, {
    channel: "slack",
    receivedAt: 42,
    ...(accountId !== null ? { accountId } : {}),
  });
}

describe("what Stryker found unchecked", () => {
  it("message subtypes: thread_broadcast, file_share, me_message are messages; others are ignored", async () => {
    for (const subtype of ["thread_broadcast", "file_share", "me_message"]) {
      const m = (await raw(fixtures.envelope({ ...fixtures.channelMessage, subtype }))) as
        | ChannelMessage
        | undefined;
      expect(m?.direction).toBe("inbound");
    }
    expect(
      await raw(fixtures.envelope({ ...fixtures.channelMessage, subtype: "channel_topic" })),
    ).toEqual({ kind: "ignore", reason: "service message", detail: "channel_topic" });
  });

  it("herald's metadata marks ours only with our app id; a bot id alone or the bot_message subtype alone is a bot", async () => {
    const { user: _u, ...noUser } = fixtures.channelMessage;
    const tagged = {
      ...noUser,
      app_id: FAKE_BOT.appId,
      metadata: fixtures.ownMessage.metadata,
    };
    expect((await normalized(tagged)).message.sender?.isSelf).toBe(true);
    const failure = {
      ...tagged,
      metadata: { event_type: "herald_gateway_failure", event_payload: {} },
    };
    expect((await normalized(failure)).message.sender?.isSelf).toBe(true);
    const untagged = { ...noUser, app_id: "A0OTHER0001", metadata: fixtures.ownMessage.metadata };
    expect((await normalized(untagged)).message.sender).not.toHaveProperty("isSelf");
    const otherType = { ...noUser, app_id: "A0OTHER0001", metadata: { event_type: "deploy" } };
    expect((await normalized(otherType)).message.sender).not.toHaveProperty("isSelf");
    expect((await normalized({ ...noUser, bot_id: "B0OTHER0001" })).message.sender).toMatchObject({
      id: "B0OTHER0001",
      isBot: true,
    });
    expect(
      (await normalized({ ...noUser, subtype: "bot_message", username: "x" })).message.sender,
    ).toMatchObject({ id: "unknown", isBot: true, displayName: "x" });
    // Without an app id known, a message with no app id is not ours.
    const { appId: _app, ...noAppIdentity } = identity;
    const noApp = createSlackAdapter(
      slackConfigSchema.parse({ slackApiUrl: "http://127.0.0.1:9/api/" }),
      { token: FAKE_BOT.token, identity: noAppIdentity },
    );
    const m = (await raw(
      fixtures.envelope({ ...noUser, bot_id: "B0OTHER0001" }),
      "main",
      noApp,
    )) as ChannelMessage;
    expect(m.sender).not.toHaveProperty("isSelf");
    expect(noApp.receive?.selfIds?.("main")).toEqual([FAKE_BOT.userId, FAKE_BOT.botId]);
  });

  it("a D… id with channel_type channel is a group; app_mention mentions us without the text; no account, none set", async () => {
    const m = (await raw(
      fixtures.envelope({ ...fixtures.channelMessage, channel: "D00000009" }),
    )) as ChannelMessage;
    expect(m.target.kind).toBe("group");
    const mention = (await raw(
      fixtures.envelope({ ...fixtures.appMention, text: "no id in it" }),
    )) as ChannelMessage;
    expect(mention.mentions?.self).toBe(true);
    expect(await raw(fixtures.envelope(fixtures.channelMessage), null)).not.toHaveProperty(
      "accountId",
    );
    expect(await raw(fixtures.envelope(fixtures.messageDeleted), null)).not.toHaveProperty(
      "accountId",
    );
    expect(await raw(fixtures.envelope(fixtures.messageDeleted))).toMatchObject({
      accountId: "main",
      platformMessageId: "C00000001:1358878749.000002",
    });
    const { deleted_ts: _d, ...noDeletedTs } = fixtures.messageDeleted;
    expect(await raw(fixtures.envelope(noDeletedTs))).toMatchObject({
      platformMessageId: "C00000001:1358878749.000002",
    });
    const { user: _u, ...nobody } = fixtures.channelJoin;
    expect(await raw(fixtures.envelope({ ...nobody, subtype: "channel_leave" }))).toMatchObject({
      type: "member_left",
      members: [{ id: "unknown" }],
    });
  });

  it("edits: no message, our own, text unchanged — ignored with a reason; a mention already there is not added", async () => {
    // The schema refuses an edit without its message (dead-lettered, naming the field).
    await expect(
      raw(fixtures.envelope({ ...fixtures.messageChanged({}, {}), message: undefined })),
    ).rejects.toThrow(/event\.message/);
    const own = fixtures.messageChanged(
      { user: FAKE_BOT.userId, text: "v2", ts: "1.000001" },
      { user: FAKE_BOT.userId, text: "v1", ts: "1.000001" },
    );
    expect(await raw(fixtures.envelope(own))).toEqual({ kind: "ignore", reason: "own edit" });
    const same = fixtures.messageChanged(
      { user: ALICE.id, text: "v1", ts: "1.000001" },
      { user: ALICE.id, text: "v1", ts: "1.000001" },
    );
    expect(await raw(fixtures.envelope(same))).toEqual({
      kind: "ignore",
      reason: "unchanged edit",
      detail: "metadata, reply counts or attachments changed",
    });
    const noBefore = {
      ...fixtures.messageChanged({ user: ALICE.id, text: "v2", ts: "1.000001" }, {}),
    };
    expect(
      await raw(fixtures.envelope({ ...noBefore, previous_message: undefined })),
    ).toMatchObject({ kind: "event", type: "message_edited" });
    const policy = createSlackAdapter(
      slackConfigSchema.parse({
        slackApiUrl: "http://127.0.0.1:9/api/",
        editPolicy: "mention-added",
      }),
      { token: FAKE_BOT.token, identity },
    );
    const already = fixtures.messageChanged(
      { user: ALICE.id, text: `<@${FAKE_BOT.userId}> v2`, ts: "1.000001" },
      { user: ALICE.id, text: `<@${FAKE_BOT.userId}> v1`, ts: "1.000001" },
    );
    expect(await raw(fixtures.envelope(already), "main", policy)).toMatchObject({
      kind: "event",
      type: "message_edited",
    });
    const added = fixtures.messageChanged(
      { user: ALICE.id, text: `<@${FAKE_BOT.userId}> v2`, ts: "1.000001" },
      { user: ALICE.id, text: "v1", ts: "1.000001" },
    );
    expect(await raw(fixtures.envelope(added), "main", policy)).toMatchObject({
      direction: "inbound",
      platformMessageId: "C00000001:1.000001",
    });
  });

  it("a slash command: text, target, sender, ids, addressed to us; classified slash_command", async () => {
    const m = (await raw(fixtures.slashCommand)) as ChannelMessage;
    expect(m).toEqual({
      id: `slack:${fixtures.slashCommand.team_id}:command:${fixtures.slashCommand.trigger_id}`,
      channel: "slack",
      accountId: "main",
      direction: "inbound",
      target: { kind: "group", id: fixtures.slashCommand.channel_id },
      sender: { id: ALICE.id, isBot: false, displayName: "alice" },
      body: { markdown: "/deploy staging now", plain: "/deploy staging now" },
      platformMessageId: `command:${fixtures.slashCommand.trigger_id}`,
      timestamp: 42,
      mentions: { self: true },
      raw: fixtures.slashCommand,
    });
    expect(await adapter.receive?.classify?.(m, fixtures.slashCommand)).toMatchObject({
      eventType: "slash_command",
    });
    const { user_name: _n, text: _t, ...bare } = fixtures.slashCommand;
    const dm = (await raw({ ...bare, channel_id: "D00000001" }, null)) as ChannelMessage;
    expect(dm).toMatchObject({
      target: { kind: "direct", id: "D00000001" },
      body: { plain: "/deploy" },
      sender: { id: ALICE.id, isBot: false },
    });
    expect(dm.sender).not.toHaveProperty("displayName");
    expect(dm).not.toHaveProperty("accountId");
  });

  it("not an event callback, another workspace, an unhandled event type: ignored with the reason", async () => {
    expect(await raw({ type: "view_submission" })).toEqual({
      kind: "ignore",
      reason: "not an event",
      detail: "view_submission",
    });
    expect(
      await raw({ ...fixtures.envelope(fixtures.channelMessage), team_id: "T0OTHER" }),
    ).toEqual({ kind: "ignore", reason: "other workspace", detail: "T0OTHER" });
    expect(
      await raw(fixtures.envelope({ type: "user_change", user: ALICE.id, event_ts: "1.1" })),
    ).toEqual({ kind: "ignore", reason: "event type not handled", detail: "user_change" });
  });
});
