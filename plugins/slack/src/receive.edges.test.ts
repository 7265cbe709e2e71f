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
