/**
 * The receive adapter on dispatches as the fake Discord stores and sends them (its message and
 * channel JSON, validated against Discord's spec), without a gateway round trip: who counts as
 * "us" (bot user, application, our webhooks — not another bot, another app's webhook or another
 * of our accounts), thread channels vs channels that merely have a parent (a category), the
 * text as Discord wrote it, mentions, replies, attachments, edits, deletes, interactions.
 * ([H22] item 3: each test names the planted bug it catches.)
 */
import {
  type ChannelMessage,
  type MessageEventClass,
  type NormalizeResult,
  ReceiveValidationError,
} from "@herald/plugin-sdk/channel-message";
import { describe, expect, it, onTestFinished } from "vitest";
import { DiscordIdentity, OutboundRegistry } from "./origin.ts";
import { createReceive, type DiscordInbound } from "./receive.ts";
import {
  ALICE,
  FAKE_BOT,
  FakeDiscord,
  OTHER_FAKE_BOT,
  SECOND_FAKE_BOT,
} from "./testing/FakeDiscord.ts";
import { channelJson } from "./testing/fakeRest.ts";

/** An application id other than the bot's user id (older Discord apps have one). */
const OUR_APP = "710000000000000001";
const OUR_HOOK = "900000000000000001";
const THEIR_HOOK = "900000000000000002";

async function open(init: ConstructorParameters<typeof DiscordIdentity>[0] = {}) {
  const fake = await FakeDiscord.start();
  onTestFinished(() => fake.close());
  const identity = new DiscordIdentity({
    userId: FAKE_BOT.id,
    applicationId: OUR_APP,
    webhookIds: [OUR_HOOK],
    ...init,
  });
  const registry = new OutboundRegistry();
  const receive = createReceive(identity, registry);
  const text = fake.createChannel({ type: "text" });
  /** The dispatch the receiver hands over for a stored message (create / update). */
  const dispatch = (
    t: string,
    d: Record<string, unknown>,
    channelId = d.channel_id as string,
  ): DiscordInbound => {
    const channel = channelJson(fake, channelId);
    return {
      t,
      s: 7,
      d,
      ...(channel.id
        ? {
            channel: {
              id: channel.id as string,
              type: channel.type as number,
              parent_id: (channel.parent_id as string | undefined) ?? null,
            },
          }
        : {}),
    };
  };
  const post = (input: Parameters<FakeDiscord["post"]>[0]) => {
    const { message } = fake.post(input);
    return { json: message.json, inbound: dispatch("MESSAGE_CREATE", message.json) };
  };
  const normalize = (inbound: DiscordInbound): NormalizeResult =>
    receive.normalize(inbound, { channel: "discord", receivedAt: 0 }) as NormalizeResult;
  const message = (inbound: DiscordInbound): ChannelMessage => {
    const result = normalize(inbound);
    if ("kind" in result) throw new Error(`not a message: ${JSON.stringify(result)}`);
    return result as ChannelMessage;
  };
  const classify = (inbound: DiscordInbound): MessageEventClass =>
    receive.classify?.(message(inbound), inbound) as MessageEventClass;
  /** Whether core would take the message for ours: an author id among the self ids. */
  const isSelf = (inbound: DiscordInbound) => {
    const mine = new Set(receive.selfIds?.(undefined) ?? []);
    return (classify(inbound).authorIds ?? []).some((id) => mine.has(id));
  };
  return {
    fake,
    text,
    identity,
    registry,
    receive,
    dispatch,
    post,
    normalize,
    message,
    classify,
    isSelf,
  };
}

describe("who counts as us (self-echo edge cases)", () => {
  it("the bot user, the application (when its id is not the user's) and our webhook are us", async () => {
    const t = await open();
    expect(t.receive.selfIds?.(undefined)).toEqual([FAKE_BOT.id, OUR_APP, OUR_HOOK]);
    const bot = { id: FAKE_BOT.id, username: FAKE_BOT.username, bot: true };
    expect(t.isSelf(t.post({ channelId: t.text.id, author: bot, text: "echo" }).inbound)).toBe(
      true,
    );
    // An interaction follow-up: posted by the application's webhook, authored by a webhook user.
    const followUp = t.post({
      channelId: t.text.id,
      author: { id: "910000000000000001", username: "herald", bot: true },
      applicationId: OUR_APP,
      text: "follow-up",
    });
    expect(t.classify(followUp.inbound).authorIds).toContain(OUR_APP);
    expect(t.isSelf(followUp.inbound)).toBe(true);
    const hook = t.post({
      channelId: t.text.id,
      author: { id: OUR_HOOK, username: "hook", bot: true },
      webhookId: OUR_HOOK,
      text: "via our webhook",
    });
    expect(t.isSelf(hook.inbound)).toBe(true);
  });

  it("the application id is listed once when it is the bot's user id (newer apps)", async () => {
    const t = await open({ applicationId: FAKE_BOT.id });
    expect(t.receive.selfIds?.(undefined)).toEqual([FAKE_BOT.id, OUR_HOOK]);
  });

  it("another bot, another app's interaction answer, another webhook, our other account: not us, but bots", async () => {
    const t = await open();
    const other = { id: OTHER_FAKE_BOT.id, username: OTHER_FAKE_BOT.username, bot: true };
    const second = { id: SECOND_FAKE_BOT.id, username: SECOND_FAKE_BOT.username, bot: true };
    const cases = [
      t.post({ channelId: t.text.id, author: other, text: "another bot" }),
      t.post({
        channelId: t.text.id,
        author: other,
        applicationId: OTHER_FAKE_BOT.applicationId,
        text: "another app's command answer",
      }),
      t.post({
        channelId: t.text.id,
        author: { id: THEIR_HOOK, username: "their hook", bot: true },
        webhookId: THEIR_HOOK,
        text: "their webhook",
      }),
      t.post({ channelId: t.text.id, author: second, text: "the same herald, another account" }),
    ];
    for (const { inbound } of cases) {
      expect(t.isSelf(inbound)).toBe(false);
      expect(t.classify(inbound).isBotAuthor).toBe(true);
      expect(t.message(inbound).sender?.isBot).toBe(true);
    }
    // The webhook's and the app's ids are authors too (a rule on them can match).
    expect(t.classify(cases[1]?.inbound as DiscordInbound).authorIds).toEqual([
      OTHER_FAKE_BOT.id,
      OTHER_FAKE_BOT.applicationId,
    ]);
    expect(t.classify(cases[2]?.inbound as DiscordInbound).authorIds).toEqual([
      THEIR_HOOK,
      THEIR_HOOK,
    ]);
  });

  it("a person is neither us nor a bot; a webhook message counts as a bot even without bot: true", async () => {
    const t = await open();
    const person = t.post({ channelId: t.text.id, author: ALICE, text: "hi" });
    expect(t.isSelf(person.inbound)).toBe(false);
    expect(t.classify(person.inbound)).toMatchObject({
      eventType: "MESSAGE_CREATE",
      eventTypes: ["MESSAGE_CREATE"],
      isBotAuthor: false,
      authorIds: [ALICE.id],
    });
    const hook = t.post({
      channelId: t.text.id,
      author: { id: THEIR_HOOK, username: "their hook" },
      webhookId: THEIR_HOOK,
      text: "a webhook user has no bot flag",
    });
    expect(t.message(hook.inbound).sender).toEqual({
      id: THEIR_HOOK,
      displayName: "their hook",
      isBot: true,
    });
  });

  it("a message this process sent is dropped by preflight, the next one in the channel is not", async () => {
    const t = await open();
    const bot = { id: FAKE_BOT.id, username: FAKE_BOT.username, bot: true };
    const mine = t.post({ channelId: t.text.id, author: bot, text: "sent by herald" });
    const theirs = t.post({ channelId: t.text.id, author: ALICE, text: "a person" });
    t.registry.remember(t.text.id, mine.json.id as string);
    expect(t.receive.preflight?.(t.message(mine.inbound), t.classify(mine.inbound))).toEqual({
      action: "drop",
      reason: "own_message",
    });
    expect(t.receive.preflight?.(t.message(theirs.inbound), t.classify(theirs.inbound))).toEqual({
      action: "accept",
    });
    // The same message id in another channel is not ours.
    const elsewhere = t.fake.createChannel({ type: "text" });
    t.registry.remember(elsewhere.id, theirs.json.id as string);
    expect(t.receive.preflight?.(t.message(theirs.inbound), t.classify(theirs.inbound))).toEqual({
      action: "accept",
    });
  });

  it("our own edits (bot user or our webhook) are ignored; another bot's and a person's edits are events", async () => {
    const t = await open();
    const bot = { id: FAKE_BOT.id, username: FAKE_BOT.username, bot: true };
    const mine = t.post({ channelId: t.text.id, author: bot, text: "preview" });
    const viaHook = t.post({
      channelId: t.text.id,
      author: { id: "920000000000000001", username: "herald hook", bot: true },
      webhookId: OUR_HOOK,
      text: "hook preview",
    });
    const other = t.post({
      channelId: t.text.id,
      author: { id: OTHER_FAKE_BOT.id, username: OTHER_FAKE_BOT.username, bot: true },
      text: "other bot",
    });
    const person = t.post({ channelId: t.text.id, author: ALICE, text: "v1" });
    const edited = (json: Record<string, unknown>) =>
      t.normalize(
        t.dispatch("MESSAGE_UPDATE", {
          ...json,
          content: "v2",
          edited_timestamp: "2026-01-02T03:04:05.000000+00:00",
        }),
      );
    expect(edited(mine.json)).toEqual({ kind: "ignore", reason: "own_edit" });
    expect(edited(viaHook.json)).toEqual({ kind: "ignore", reason: "own_edit" });
    for (const json of [other.json, person.json]) {
      const event = edited(json);
      expect(event).toMatchObject({
        kind: "event",
        type: "message_edited",
        id: `${t.text.id}:${json.id}:edit:2026-01-02T03:04:05.000000+00:00`,
        channel: "discord",
        platformMessageId: `${t.text.id}:${json.id}`,
        target: { kind: "group", id: t.text.id },
        message: { body: { markdown: "v2", plain: "v2" } },
      });
    }
  });
});

describe("targets and thread ids (boundary values)", () => {
  it("a channel under a category has a parent_id but is no thread: a group, anchored on the message", async () => {
    const t = await open();
    const category = t.fake.createChannel({ type: "category" });
    const child = t.fake.createChannel({ type: "text", parentId: category.id });
    const { json, inbound } = t.post({ channelId: child.id, author: ALICE, text: "hi" });
    expect(inbound.channel?.parent_id).toBe(category.id);
    const m = t.message(inbound);
    expect(m.target).toEqual({ kind: "group", id: child.id, spaceId: t.fake.guildId });
    expect(m.threadAnchor).toEqual({ threadId: json.id });
  });

  it("every thread channel type (10 announcement, 11 public, 12 private) is a thread under its parent", async () => {
    const t = await open();
    const root = t.post({ channelId: t.text.id, author: ALICE, text: "root" });
    const thread = t.fake.startThread(root.json.id as string);
    const { json } = t.post({ channelId: thread.id, author: ALICE, text: "in the thread" });
    for (const type of [10, 11, 12]) {
      const inbound = t.dispatch("MESSAGE_CREATE", json, thread.id);
      const m = t.message({ ...inbound, channel: { id: thread.id, type, parent_id: t.text.id } });
      expect(m.target).toEqual({
        kind: "thread",
        id: t.text.id,
        parentId: t.text.id,
        threadId: thread.id,
        spaceId: t.fake.guildId,
      });
      // In a thread, the anchor is the thread itself (the thread id is the root message's id).
      expect(m.threadAnchor).toEqual({ threadId: thread.id });
    }
  });

  it("a thread channel the gateway gave no parent for, or no channel at all: the channel as a group", async () => {
    const t = await open();
    const { json, inbound } = t.post({ channelId: t.text.id, author: ALICE, text: "x" });
    const noParent = t.message({
      ...inbound,
      channel: { id: t.text.id, type: 11, parent_id: null },
    });
    expect(noParent.target).toEqual({ kind: "group", id: t.text.id, spaceId: t.fake.guildId });
    const { channel: _none, ...bare } = inbound;
    expect(t.message(bare).target).toEqual({
      kind: "group",
      id: t.text.id,
      spaceId: t.fake.guildId,
    });
    expect(t.message(bare).threadAnchor).toEqual({ threadId: json.id });
  });

  it("a DM (no guild_id): direct, no thread anchor, no space", async () => {
    const t = await open();
    const dm = t.fake.createChannel({ type: "dm" });
    const m = t.message(t.post({ channelId: dm.id, author: ALICE, text: "hi" }).inbound);
    expect(m.target).toEqual({ kind: "direct", id: dm.id });
    expect(m.threadAnchor).toBeUndefined();
    expect(t.classify(t.post({ channelId: dm.id, author: ALICE, text: "x" }).inbound)).toEqual(
      expect.objectContaining({ isRoomish: false }),
    );
  });
});

describe("text, mentions, replies, attachments", () => {
  it("the text is kept as Discord wrote it: escapes, mention syntax, entities, markdown, newlines", async () => {
    const t = await open();
    const text = "\\*not bold\\* `a<b>&amp;c` <@600000000000000001> &lt; **bold**\nline 2 \\\\";
    const { json, inbound } = t.post({ channelId: t.text.id, author: ALICE, text });
    const m = t.message(inbound);
    expect(m.body).toEqual({ markdown: text, plain: text });
    expect(m).toMatchObject({
      id: `${t.text.id}:${json.id}`,
      platformMessageId: `${t.text.id}:${json.id}`,
      channel: "discord",
      direction: "inbound",
      raw: inbound,
    });
    expect(m.mentions).toEqual({ self: false, users: [] });
  });

  it("mentions of the bot: <@id>, <@!id>, the mentions array, a reply to the bot; not another user, not without a user id", async () => {
    const t = await open();
    const self = (text: string, extra: Record<string, unknown> = {}) => {
      const { json } = t.post({ channelId: t.text.id, author: ALICE, text });
      return t.message(t.dispatch("MESSAGE_CREATE", { ...json, ...extra })).mentions?.self;
    };
    expect(self(`hey <@${FAKE_BOT.id}>`)).toBe(true);
    expect(self(`hey <@!${FAKE_BOT.id}>`)).toBe(true);
    expect(self("hey", { mentions: [{ id: FAKE_BOT.id, username: FAKE_BOT.username }] })).toBe(
      true,
    );
    expect(self("hey", { referenced_message: { author: { id: FAKE_BOT.id } } })).toBe(true);
    expect(self(`hey <@${OTHER_FAKE_BOT.id}>`)).toBe(false);
    expect(self(`hey <@&${FAKE_BOT.id}>`)).toBe(false);
    expect(self("hey", { mentions: [{ id: ALICE.id }] })).toBe(false);
    expect(self("hey", { referenced_message: { author: { id: ALICE.id } } })).toBe(false);
    expect(self("hey", { referenced_message: null })).toBe(false);
    const { json } = t.post({ channelId: t.text.id, author: ALICE, text: "x" });
    expect(
      t.message(
        t.dispatch("MESSAGE_CREATE", {
          ...json,
          mentions: [{ id: ALICE.id }, { id: OTHER_FAKE_BOT.id }],
        }),
      ).mentions,
    ).toEqual({ self: false, users: [ALICE.id, OTHER_FAKE_BOT.id] });

    // Before READY the bot's user id is unknown: nothing mentions it (not "<@undefined>").
    const blind = await open({ userId: undefined });
    const early = blind.post({ channelId: blind.text.id, author: ALICE, text: "<@undefined>" });
    expect(
      blind.message(
        blind.dispatch("MESSAGE_CREATE", {
          ...early.json,
          mentions: [{ id: "x" }],
          referenced_message: null,
        }),
      ).mentions?.self,
    ).toBe(false);
  });

  it("a reply names the message it answers, in the reference's channel when given", async () => {
    const t = await open();
    const root = t.post({ channelId: t.text.id, author: ALICE, text: "question" });
    const reply = t.post({
      channelId: t.text.id,
      author: ALICE,
      text: "answer",
      referenceId: root.json.id as string,
    });
    expect(t.message(reply.inbound).relation).toEqual({
      kind: "reply",
      replyToId: `${t.text.id}:${root.json.id}`,
    });
    const crossChannel = t.dispatch("MESSAGE_CREATE", {
      ...reply.json,
      message_reference: { message_id: "42", channel_id: "800000000000999" },
    });
    expect(t.message(crossChannel).relation).toEqual({
      kind: "reply",
      replyToId: "800000000000999:42",
    });
    const noChannel = t.dispatch("MESSAGE_CREATE", {
      ...reply.json,
      message_reference: { message_id: "43" },
    });
    expect((t.message(noChannel).relation as { replyToId?: string }).replyToId).toBe(
      `${t.text.id}:43`,
    );
    expect(t.message(root.inbound).relation).toBeUndefined();
  });

  it("attachments: images by content type, files otherwise, with name, url, mime type and size", async () => {
    const t = await open();
    const { json } = t.post({ channelId: t.text.id, author: ALICE, text: "files" });
    const m = t.message(
      t.dispatch("MESSAGE_CREATE", {
        ...json,
        attachments: [
          {
            id: "1",
            filename: "a.png",
            url: "https://cdn.invalid/a.png",
            size: 10,
            content_type: "image/png",
          },
          {
            id: "2",
            filename: "b.pdf",
            url: "https://cdn.invalid/b.pdf",
            size: 0,
            content_type: "application/pdf",
          },
          { id: "3", filename: "c", url: "https://cdn.invalid/c" },
        ],
      }),
    );
    expect(m.attachments).toEqual([
      {
        kind: "image",
        url: "https://cdn.invalid/a.png",
        name: "a.png",
        mimeType: "image/png",
        sizeBytes: 10,
      },
      {
        kind: "file",
        url: "https://cdn.invalid/b.pdf",
        name: "b.pdf",
        mimeType: "application/pdf",
        sizeBytes: 0,
      },
      { kind: "file", url: "https://cdn.invalid/c", name: "c" },
    ]);
    expect(
      t.message(t.post({ channelId: t.text.id, author: ALICE, text: "none" }).inbound),
    ).not.toHaveProperty("attachments");
  });

  it("the sender's display name is the global name, else the username; the timestamp is Discord's", async () => {
    const t = await open();
    const { json } = t.post({ channelId: t.text.id, author: ALICE, text: "x" });
    const named = t.message(
      t.dispatch("MESSAGE_CREATE", {
        ...json,
        author: { ...(json.author as object), global_name: "Alice A." },
        timestamp: "2026-03-04T05:06:07.000000+00:00",
      }),
    );
    expect(named.sender).toEqual({ id: ALICE.id, displayName: "Alice A.", isBot: false });
    expect(named.timestamp).toBe(Date.parse("2026-03-04T05:06:07.000Z"));
    const bare = t.message(
      t.dispatch("MESSAGE_CREATE", { ...json, author: { id: ALICE.id }, timestamp: undefined }),
    );
    expect(bare.sender).toEqual({ id: ALICE.id, isBot: false });
    expect(bare).not.toHaveProperty("timestamp");
  });
});

describe("dispatch kinds", () => {
  it("system messages are ignored with their type; replies (19) and command answers (20, 23) are messages", async () => {
    const t = await open();
    const { json } = t.post({ channelId: t.text.id, author: ALICE, text: "x" });
    for (const type of [6, 7, 18, 21]) {
      expect(t.normalize(t.dispatch("MESSAGE_CREATE", { ...json, type }))).toEqual({
        kind: "ignore",
        reason: "system_message",
        detail: `type ${type}`,
      });
    }
    for (const type of [0, 19, 20, 23]) {
      expect(t.message(t.dispatch("MESSAGE_CREATE", { ...json, type })).body?.plain).toBe("x");
    }
  });

  it("an edit without author (an embed unfurl) is no edit; an edit without edited_timestamp is named by the sequence", async () => {
    const t = await open();
    const { json } = t.post({ channelId: t.text.id, author: ALICE, text: "see https://x.invalid" });
    expect(
      t.normalize(t.dispatch("MESSAGE_UPDATE", { id: json.id, channel_id: t.text.id, embeds: [] })),
    ).toEqual({ kind: "ignore", reason: "unfurl" });
    expect(
      t.normalize(t.dispatch("MESSAGE_UPDATE", { ...json, author: null, content: "y" })),
    ).toEqual({ kind: "ignore", reason: "unfurl" });
    const event = t.normalize(
      t.dispatch("MESSAGE_UPDATE", { ...json, content: "y", edited_timestamp: null }),
    );
    expect(event).toMatchObject({ id: `${t.text.id}:${json.id}:edit:7`, actor: { id: ALICE.id } });
    const noSeq = t.normalize({
      ...t.dispatch("MESSAGE_UPDATE", { ...json, content: "z", edited_timestamp: null }),
      s: null,
    });
    expect(noSeq).toMatchObject({ id: `${t.text.id}:${json.id}:edit:` });
    // A `d` that is no object at all is malformed: it throws (dead-lettered), never "unfurl".
    expect(() => t.normalize(t.dispatch("MESSAGE_UPDATE", null as never, t.text.id))).toThrow();
  });

  it("a delete is a message_deleted event naming the message, in a thread too", async () => {
    const t = await open();
    const root = t.post({ channelId: t.text.id, author: ALICE, text: "root" });
    const thread = t.fake.startThread(root.json.id as string);
    const inThread = t.post({ channelId: thread.id, author: ALICE, text: "gone" });
    const event = t.normalize(
      t.dispatch(
        "MESSAGE_DELETE",
        { id: inThread.json.id, channel_id: thread.id, guild_id: t.fake.guildId },
        thread.id,
      ),
    );
    expect(event).toEqual({
      kind: "event",
      type: "message_deleted",
      id: `${thread.id}:${inThread.json.id}:deleted`,
      channel: "discord",
      target: {
        kind: "thread",
        id: t.text.id,
        parentId: t.text.id,
        threadId: thread.id,
        spaceId: t.fake.guildId,
      },
      platformMessageId: `${thread.id}:${inThread.json.id}`,
      raw: expect.anything(),
    });
  });

  it("another dispatch is ignored with its name", async () => {
    const t = await open();
    expect(t.normalize({ t: "TYPING_START", s: 1, d: {} })).toEqual({
      kind: "ignore",
      reason: "dispatch_type",
      detail: "TYPING_START",
    });
  });

  it("a slash command with a subcommand group: /name group sub option:value, addressed to the bot, the member's user", async () => {
    const t = await open();
    const inbound = t.dispatch(
      "INTERACTION_CREATE",
      {
        id: "1300000000000000001",
        type: 2,
        channel_id: t.text.id,
        guild_id: t.fake.guildId,
        member: { user: { id: ALICE.id, username: "alice" } },
        data: {
          name: "deploy",
          options: [
            {
              name: "env",
              options: [
                {
                  name: "prod",
                  options: [
                    { name: "service", value: "api" },
                    { name: "count", value: 3 },
                    { name: "empty", value: null },
                  ],
                },
              ],
            },
          ],
        },
      },
      t.text.id,
    );
    const m = t.message(inbound);
    expect(m).toMatchObject({
      id: "interaction:1300000000000000001",
      body: { plain: "/deploy env prod service:api count:3 empty:" },
      mentions: { self: true },
      sender: { id: ALICE.id, displayName: "alice", isBot: false },
      target: { kind: "group", id: t.text.id },
    });
    expect(m).not.toHaveProperty("platformMessageId");
    expect(t.receive.classify?.(m, inbound)).toEqual({
      eventType: "INTERACTION_CREATE",
      eventTypes: ["INTERACTION_CREATE"],
      isBotAuthor: false,
      isRoomish: true,
      mentionsSelf: true,
      authorIds: [ALICE.id],
    });
    expect(t.receive.preflight?.(m, t.classify(inbound))).toEqual({ action: "accept" });
  });

  it("a button (custom_id) in a DM: an action ([H23]) with its id and the user; no user at all: ignored", async () => {
    const t = await open();
    const dm = t.fake.createChannel({ type: "dm" });
    const base = { id: "1300000000000000002", type: 3, channel_id: dm.id };
    expect(
      t.normalize(
        t.dispatch(
          "INTERACTION_CREATE",
          { ...base, user: { id: ALICE.id, username: "alice" }, data: { custom_id: "approve:7" } },
          dm.id,
        ),
      ),
    ).toMatchObject({
      kind: "action",
      id: "interaction:1300000000000000002",
      actionId: "approve:7",
      sender: { id: ALICE.id, displayName: "alice" },
      target: { kind: "direct", id: dm.id },
      ack: "deferred_update_message",
    });
    expect(
      t.normalize(t.dispatch("INTERACTION_CREATE", { ...base, user: { id: ALICE.id } }, dm.id)),
    ).toMatchObject({ kind: "action", actionId: "", sender: { id: ALICE.id } });
    expect(t.normalize(t.dispatch("INTERACTION_CREATE", base, dm.id))).toEqual({
      kind: "ignore",
      reason: "interaction_without_user",
    });
  });
});

describe("what Stryker found unchecked", () => {
  it("malformed dispatches are validation errors (missing ids, author, channel), never messages or unfurls", async () => {
    const t = await open();
    const { json } = t.post({ channelId: t.text.id, author: ALICE, text: "x" });
    const { id: _id, ...noId } = json;
    const { author: _a, ...noAuthor } = json;
    const { channel_id: _c, ...noChannel } = json;
    for (const d of [noId, noAuthor, noChannel, { ...json, author: { username: "x" } }]) {
      expect(() => t.normalize(t.dispatch("MESSAGE_CREATE", d, t.text.id))).toThrow(
        ReceiveValidationError,
      );
    }
    expect(() => t.normalize(t.dispatch("MESSAGE_UPDATE", "x" as never, t.text.id))).toThrow(
      ReceiveValidationError,
    );
    expect(() => t.normalize(t.dispatch("MESSAGE_UPDATE", null as never, t.text.id))).toThrow(
      ReceiveValidationError,
    );
    expect(() => t.normalize({ t: 7, d: {} } as never)).toThrow(ReceiveValidationError);
    expect(() =>
      t.normalize({ t: "MESSAGE_CREATE", d: json, channel: { id: t.text.id } } as never),
    ).toThrow(ReceiveValidationError);
    expect(() =>
      t.normalize(t.dispatch("INTERACTION_CREATE", { id: "1", channel_id: t.text.id }, t.text.id)),
    ).toThrow(ReceiveValidationError);
    expect(() =>
      t.normalize(
        t.dispatch(
          "INTERACTION_CREATE",
          { id: "1", type: 2, channel_id: t.text.id, member: { nick: "x" } },
          t.text.id,
        ),
      ),
    ).toThrow(ReceiveValidationError);
    expect(() =>
      t.normalize(
        t.dispatch(
          "INTERACTION_CREATE",
          { id: "1", type: 2, channel_id: t.text.id, user: { id: ALICE.id }, data: { name: 5 } },
          t.text.id,
        ),
      ),
    ).toThrow(ReceiveValidationError);
    expect(() => t.normalize(t.dispatch("MESSAGE_DELETE", { id: "1" }, t.text.id))).toThrow(
      ReceiveValidationError,
    );
  });

  it("absent content, mentions and attachments default to empty; an attachment without size has none", async () => {
    const t = await open();
    const { json } = t.post({ channelId: t.text.id, author: ALICE, text: "x" });
    const { content: _c, mentions: _m, attachments: _a, ...bare } = json;
    const m = t.message(t.dispatch("MESSAGE_CREATE", bare));
    expect(m.body).toEqual({ markdown: "", plain: "" });
    expect(m.mentions).toEqual({ self: false, users: [] });
    expect(m).not.toHaveProperty("attachments");
    const sized = t.message(
      t.dispatch("MESSAGE_CREATE", {
        ...json,
        attachments: [{ id: "3", filename: "c", url: "https://cdn.invalid/c" }],
      }),
    );
    expect(sized.attachments?.[0]).not.toHaveProperty("sizeBytes");
    expect(sized.attachments?.[0]).not.toHaveProperty("mimeType");
    // A referenced message whose author Discord left out (deleted) mentions nobody.
    expect(
      t.message(t.dispatch("MESSAGE_CREATE", { ...json, referenced_message: {} })).mentions?.self,
    ).toBe(false);
  });

  it("an edit through someone else's webhook is an event; classify carries the mention of a message", async () => {
    const t = await open();
    const hook = t.post({
      channelId: t.text.id,
      author: { id: THEIR_HOOK, username: "their hook", bot: true },
      webhookId: THEIR_HOOK,
      text: "v1",
    });
    expect(
      t.normalize(
        t.dispatch("MESSAGE_UPDATE", {
          ...hook.json,
          content: "v2",
          edited_timestamp: "2026-01-02T03:04:05.000000+00:00",
        }),
      ),
    ).toMatchObject({ kind: "event", type: "message_edited" });
    const mention = t.post({ channelId: t.text.id, author: ALICE, text: `<@${FAKE_BOT.id}> hi` });
    expect(t.classify(mention.inbound)).toMatchObject({ mentionsSelf: true, isRoomish: true });
    const plain = t.post({ channelId: t.text.id, author: ALICE, text: "hi" });
    expect(t.classify(plain.inbound)).toMatchObject({ mentionsSelf: false });
    const { sender: _s, mentions: _m, ...anonymous } = t.message(plain.inbound);
    expect(t.receive.classify?.(anonymous as ChannelMessage, plain.inbound)).toMatchObject({
      isBotAuthor: false,
      mentionsSelf: false,
    });
  });

  it("interactions: a bare command, a bot user, a DM, an id this process remembered", async () => {
    const t = await open();
    const dm = t.fake.createChannel({ type: "dm" });
    const inbound = t.dispatch(
      "INTERACTION_CREATE",
      {
        id: "1300000000000000009",
        type: 2,
        channel_id: dm.id,
        user: { id: OTHER_FAKE_BOT.id, username: "other", bot: true },
        data: { name: "ping", options: [{ name: "verbose" }] },
      },
      dm.id,
    );
    const m = t.message(inbound);
    expect(m).toMatchObject({
      direction: "inbound",
      body: { plain: "/ping verbose:" },
      sender: { id: OTHER_FAKE_BOT.id, isBot: true },
    });
    const klass = t.receive.classify?.(m, inbound);
    expect(klass).toMatchObject({ isRoomish: false, isBotAuthor: false, mentionsSelf: true });
    const { sender: _s, ...anonymous } = m;
    expect(t.receive.classify?.(anonymous as ChannelMessage, inbound)).toMatchObject({
      authorIds: [""],
    });
    const bare = t.dispatch(
      "INTERACTION_CREATE",
      { ...(inbound.d as object), data: { name: "ping" } },
      dm.id,
    );
    expect(t.message(bare).body?.plain).toBe("/ping");
    // An interaction is never our own message, whatever this process remembered.
    t.registry.remember(dm.id, "1300000000000000009");
    expect(t.receive.preflight?.(m, klass as MessageEventClass)).toEqual({ action: "accept" });
  });
});
