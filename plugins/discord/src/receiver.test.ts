/**
 * The gateway receiver: the real discord.js Client against the fake gateway — normalization,
 * RESUME replays (C26), an in-flight duplicate (C09), two bots in one channel (C11), echoes.
 */
import {
  type ChannelMessage,
  isChannelAccountError,
  placeReply,
} from "@herald/plugin-sdk/channel-message";
import {
  eventually,
  FakeSocketServer,
  type MessageReceiveContext,
  openTestRun,
} from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { createDiscordAdapter, identityOf } from "./index.ts";
import { OutboundRegistry } from "./origin.ts";
import { createGatewayReceiver, GATEWAY_CURSOR } from "./receiver.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT, FakeDiscord, OTHER_FAKE_BOT } from "./testing/FakeDiscord.ts";
import { testConfig } from "./testing/harness.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const idsOf = (handled: MessageReceiveContext[]) => handled.map((h) => h.input.platformMessageId);

describe("normalize", () => {
  it("a guild message: group target, the thread anchor is its own id, mentions of the bot", async () => {
    const b = await openBench();
    const { channel } = b.channel();
    await b.startReceiver();
    const { message } = b.fake.post({
      channelId: channel.id,
      author: ALICE,
      text: `hello <@${FAKE_BOT.id}>`,
    });
    await eventually(
      () => b.run.handled.length,
      (n) => n === 1,
      { what: "one handled message" },
    );
    expect(b.run.handled[0]?.input).toMatchObject({
      platformMessageId: `${channel.id}:${message.json.id}`,
      target: { kind: "group", id: channel.id },
      sender: { id: ALICE.id, isBot: false },
      body: { markdown: `hello <@${FAKE_BOT.id}>` },
      threadAnchor: { threadId: message.json.id },
      mentions: { self: true },
    });
  });

  it("a message in a thread: thread target under its parent; a DM: direct, no anchor", async () => {
    const b = await openBench();
    const { channel } = b.channel();
    const { message: root } = b.fake.post({ channelId: channel.id, author: ALICE, text: "root" });
    const thread = b.fake.startThread(root.json.id as string);
    const dm = b.fake.createChannel({ type: "dm" });
    await b.startReceiver();
    b.fake.post({ channelId: thread.id, author: ALICE, text: "in the thread" });
    b.fake.post({ channelId: dm.id, author: ALICE, text: "in a DM" });
    await eventually(
      () => b.run.handled.length,
      (n) => n === 3,
      { what: "three messages" },
    );
    const byText = (t: string) => b.run.handled.find((h) => h.input.body?.markdown === t)?.input;
    expect(byText("in the thread")).toMatchObject({
      target: { kind: "thread", id: channel.id, parentId: channel.id, threadId: thread.id },
      threadAnchor: { threadId: thread.id },
    });
    expect(byText("in a DM")?.target).toEqual({ kind: "direct", id: dm.id });
    expect(byText("in a DM")?.threadAnchor).toBeUndefined();
  });

  it("edits and deletes are typed events, never turns", async () => {
    const events: string[] = [];
    const b = await openBench({
      receive: { eventHandler: (event) => void events.push(event.type) },
    });
    const { channel } = b.channel();
    await b.startReceiver();
    const { message } = b.fake.post({ channelId: channel.id, author: ALICE, text: "v1" });
    await eventually(
      () => b.run.handled.length,
      (n) => n === 1,
      { what: "the create" },
    );
    b.fake.edit(message.json.id as string, "v2");
    b.fake.delete(message.json.id as string);
    await eventually(
      () => events,
      (e) => e.length === 2,
      { what: "edit and delete events" },
    );
    expect(events).toEqual(["message_edited", "message_deleted"]);
    expect(b.run.handled.length).toBe(1);
  });

  it("its own messages, its application's and its webhooks' are dropped before the handler", async () => {
    const b = await openBench({ config: { webhookIds: ["900000000000000001"] } });
    const { channel, target } = b.channel();
    await b.startReceiver();
    await b.runtime.send(b.message(target, "sent by herald"));
    b.fake.post({
      channelId: channel.id,
      author: { id: FAKE_BOT.id, username: "me", bot: true },
      text: "echo",
    });
    b.fake.post({
      channelId: channel.id,
      author: { id: "900000000000000001", username: "hook", bot: true },
      webhookId: "900000000000000001",
      text: "via our webhook",
    });
    b.fake.post({ channelId: channel.id, author: ALICE, text: "a person" });
    await eventually(
      () => b.run.handled.length,
      (n) => n >= 1,
      { what: "the person's message" },
    );
    await pause(300);
    expect(b.run.handled.map((h) => h.input.body?.markdown)).toEqual(["a person"]);
  });
});

describe("gateway URL", () => {
  it("gatewayUrl is dialled instead of the url GET /gateway/bot names", async () => {
    const b = await openBench();
    const real = b.fake.gateway.server.url;
    b.fake.gatewayUrl = "ws://127.0.0.1:9/nowhere"; // what GET /gateway/bot answers now
    const { channel } = b.channel();
    const receiver = createGatewayReceiver({
      config: { ...b.config, gatewayUrl: real },
      token: FAKE_BOT.token,
      sink: b.run.sink("discord"),
      identity: b.identity,
    });
    onTestFinished(() => receiver.stop());
    await receiver.start();
    b.fake.post({ channelId: channel.id, author: ALICE, text: "via the configured URL" });
    await eventually(
      () => b.run.handled.length,
      (n) => n === 1,
      { what: "the message" },
    );
    expect(b.fake.gateway.server.connections.length).toBe(1);
  });
});

describe("C26 · gateway replay after RESUME", () => {
  it("1234 processed and answered; close 4000; the resume replays 1234 and 1235: 1234 not again, 1235 once, one listener", async () => {
    const b = await openBench({
      handler: async (ctx) => {
        const reply = placeReply(ctx.input);
        await b.runtime.send(
          b.message(reply.target, `re: ${ctx.input.body?.markdown}`, { relation: reply.relation }),
        );
      },
    });
    const { channel } = b.channel();
    const receiver = await b.startReceiver();
    const { message: first } = b.fake.post({ channelId: channel.id, author: ALICE, text: "1234" });
    await eventually(
      () => b.fake.messages(channel.id).length,
      (n) => n === 2,
      { what: "the answer" },
    );
    const [session] = [...b.fake.gateway.sessions.values()];
    const firstSeq =
      session?.log.find(
        (p) => p.t === "MESSAGE_CREATE" && (p.d as { id: string }).id === first.json.id,
      )?.s ?? 0;
    // The gateway resumes from before 1234: it sends 1234 again, then 1235.
    b.fake.gateway.replayOverlap = (session?.seq ?? 0) - firstSeq + 1;
    await b.fake.gateway.closeAll(4000);
    const { message: second } = b.fake.post({ channelId: channel.id, author: ALICE, text: "1235" });
    await eventually(
      () => b.run.handled.length,
      (n) => n === 2,
      { what: "1235 handled" },
    );
    await eventually(
      () => b.fake.messages(channel.id).length,
      (n) => n === 4,
      { what: "its answer" },
    );
    expect(b.fake.gateway.sessions.size).toBe(1); // resumed, not identified again
    // Variant: the same id dispatched twice, 2 ms apart.
    b.fake.gateway.redispatch(second.json.id as string);
    await pause(2);
    b.fake.gateway.redispatch(second.json.id as string);
    await pause(500);
    expect(idsOf(b.run.handled)).toEqual([
      `${channel.id}:${first.json.id}`,
      `${channel.id}:${second.json.id}`,
    ]);
    expect(b.fake.messages(channel.id).map((m) => m.text)).toEqual([
      "1234",
      "re: 1234",
      "1235",
      "re: 1235",
    ]);
    expect(receiver.client.listenerCount("raw")).toBe(1);
  });
});

describe("C09 · in-flight duplicate, then failure", () => {
  it("the first processing blocks and throws while the same id arrives again: processed successfully exactly once", async () => {
    let calls = 0;
    let succeeded = 0;
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const b = await openBench({
      handler: async () => {
        calls += 1;
        if (calls === 1) {
          await blocked;
          throw new Error("the first processing fails");
        }
        succeeded += 1;
      },
    });
    const { channel } = b.channel();
    await b.startReceiver();
    const { message } = b.fake.post({ channelId: channel.id, author: ALICE, text: "1234" });
    await eventually(
      () => calls,
      (n) => n === 1,
      { what: "the first processing" },
    );
    b.fake.gateway.redispatch(message.json.id as string);
    await pause(200);
    expect(calls).toBe(1); // the duplicate waits for the lease
    release();
    await eventually(
      () => succeeded,
      (n) => n === 1,
      { what: "one successful processing", timeoutMs: 10_000 },
    );
    await pause(300);
    expect(succeeded).toBe(1);
  });
});

describe("C11 · two bots ping-pong", () => {
  it("both with allowBots: the loop guard stops the exchange within a bounded number of turns, and it resumes after the cooldown", async () => {
    const fake = await FakeDiscord.start({ buckets: { limit: 1_000, windowMs: 1_000 } });
    const channel = fake.createChannel({ type: "text" });
    const connection = { apiBase: fake.apiBase, unknownSendPolicy: "hold" as const };
    const bots = [
      { accountId: "a", token: FAKE_BOT.token },
      { accountId: "b", token: OTHER_FAKE_BOT.token },
    ].map((bot) => {
      const config = testConfig({ ...connection, token: bot.token });
      const identity = identityOf(config, bot.token);
      const adapter = createDiscordAdapter(config, bot.token, new OutboundRegistry(), identity);
      return { ...bot, config, identity, adapter };
    });
    const run = await openTestRun({
      adapters: bots.map((b) => ({ accountId: b.accountId, adapter: b.adapter })),
      receive: {
        allowBots: true,
        loopGuard: { maxEvents: 3, windowMs: 60_000, cooldownMs: 1_500 },
      },
      handler: async (ctx) => {
        const reply = placeReply(ctx.input);
        const message: ChannelMessage = {
          ...run.message("discord", reply.target, `${ctx.input.accountId} answers`),
          accountId: ctx.input.accountId as string,
        };
        await run.runtime.send(message);
      },
    });
    const receivers = bots.map((b) =>
      createGatewayReceiver({
        config: b.config,
        token: b.token,
        sink: run.sink("discord", b.accountId),
        identity: b.identity,
      }),
    );
    onTestFinished(async () => {
      for (const r of receivers) await r.stop();
      await run.close();
      await fake.close();
    });
    for (const r of receivers) await r.start();
    fake.post({ channelId: channel.id, author: ALICE, text: "hi bots" });
    // Let the exchange run until it stops by itself.
    let count = -1;
    for (let i = 0; i < 40 && count !== fake.messages(channel.id).length; i++) {
      count = fake.messages(channel.id).length;
      await pause(250);
    }
    const botMessages = fake.messages(channel.id).filter((m) => m.author.bot).length;
    // Each bot accepts at most maxEvents (3) messages of the other bot, plus the human's.
    expect(botMessages).toBeGreaterThanOrEqual(2);
    expect(botMessages).toBeLessThanOrEqual(2 + 2 * 3);
    const handledBefore = run.handled.length;
    await pause(1_700);
    // After the cooldown the pair is heard again.
    fake.post({
      channelId: channel.id,
      author: { id: OTHER_FAKE_BOT.id, username: "other-bot", bot: true },
      text: "again?",
    });
    await eventually(
      () => run.handled.length,
      (n) => n > handledBefore,
      { what: "the pair heard again" },
    );
  });
});

describe("hostile gateway dispatches", () => {
  it("null, a string, wrong types: dead-lettered with the field path, the receiver goes on, the session sequence moves past them", async () => {
    const b = await openBench();
    const { channel } = b.channel();
    await b.startReceiver();
    const gw = b.fake.gateway;
    gw.dispatch("MESSAGE_CREATE", null, channel.id);
    gw.dispatch("MESSAGE_CREATE", { id: "1", channel_id: channel.id, author: "x" }, channel.id);
    gw.dispatch("MESSAGE_UPDATE", { id: "2", channel_id: 7, author: { id: "3" } }, channel.id);
    gw.dispatch("MESSAGE_UPDATE", null, channel.id);
    gw.dispatch("MESSAGE_DELETE", "not an object", channel.id);
    b.fake.post({ channelId: channel.id, author: ALICE, text: "after the garbage" });
    await eventually(
      () => b.run.handled.map((h) => h.input.body?.markdown),
      (texts) => texts.length === 1,
      { what: "the message after the hostile dispatches" },
    );
    expect(b.run.handled[0]?.input.body?.markdown).toBe("after the garbage");
    const deadLettered = () =>
      b.run.logLines
        .filter((l) => l.includes("dead-lettered"))
        .map((l) => (JSON.parse(l) as { error: { path: string } }).error.path);
    await eventually(deadLettered, (paths) => paths.length === 5, { what: "five dead letters" });
    expect(deadLettered().sort()).toEqual(["(root)", "(root)", "(root)", "author", "channel_id"]);
    const [session] = [...gw.sessions.values()];
    await eventually(
      () => b.run.sink("discord").cursor(GATEWAY_CURSOR).load(),
      (text) => (text ? (JSON.parse(text) as { sequence: number }).sequence : 0) === session?.seq,
      { what: "the saved sequence at the last dispatch" },
    );
  });
});

describe("gateway closes no retry fixes", () => {
  it.each([
    [
      4014,
      /Message Content intent.*Developer Portal → your application → Bot → Privileged Gateway Intents/,
    ],
    [4004, /rejected the bot token.*check the bot token in DISCORD_TOKEN/],
  ])(
    "close %i on IDENTIFY: start rejects with a ChannelAccountError naming the fix (the account stops, no endless retry)",
    async (code, fix) => {
      const b = await openBench();
      const gateway = new FakeSocketServer();
      gateway.onConnection(async (conn) => {
        conn.send({ op: 10, d: { heartbeat_interval: 41_250 } });
        await conn.next((frame) => (frame as { op?: number }).op === 2, 5_000);
        await conn.close(code, "refused");
      });
      const url = await gateway.listen();
      onTestFinished(() => gateway.close());
      const receiver = createGatewayReceiver({
        config: { ...b.config, gatewayUrl: url },
        accountId: "main",
        token: FAKE_BOT.token,
        sink: b.run.sink("discord"),
        identity: b.identity,
      });
      onTestFinished(() => receiver.stop());
      const error = await receiver.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isChannelAccountError(error)).toBe(true);
      expect((error as Error).message).toMatch(/^discord\/main: /);
      expect((error as Error).message).toMatch(fix);
      expect((error as Error).message).not.toContain(FAKE_BOT.token);
    },
  );
});

describe("stop and start again", () => {
  it("a clean stop keeps the gateway session: a message posted while herald was stopped arrives by the next start's RESUME, once", async () => {
    const b = await openBench();
    const { channel } = b.channel();
    const first = await b.startReceiver();
    b.fake.post({ channelId: channel.id, author: ALICE, text: "before the stop" });
    await eventually(
      () => b.run.handled.length,
      (n) => n === 1,
      { what: "the first message" },
    );
    const [conn] = b.fake.gateway.server.connections;
    await first.stop();
    await conn?.closed;
    await pause(1_500); // the fake gateway notices a closed connection within its 1 s poll
    b.fake.post({ channelId: channel.id, author: ALICE, text: "while stopped" });
    const second = createGatewayReceiver({
      config: b.config,
      token: FAKE_BOT.token,
      sink: b.run.sink("discord"),
      identity: b.identity,
    });
    onTestFinished(() => second.stop());
    await second.start();
    await eventually(
      () => b.run.handled.map((h) => h.input.body?.markdown),
      (texts) => texts.length === 2,
      { what: "the message posted while stopped" },
    );
    await pause(300);
    expect(b.run.handled.map((h) => h.input.body?.markdown)).toEqual([
      "before the stop",
      "while stopped",
    ]);
    expect(b.fake.gateway.sessions.size).toBe(1); // resumed, never identified afresh
  });
});

describe("system messages", () => {
  it("a pin, a join, a thread-created notice are ignored; the person's next message is handled", async () => {
    const b = await openBench();
    const dm = b.fake.createChannel({ type: "dm" });
    const { channel } = b.channel();
    await b.startReceiver();
    const system = (type: number, channelId: string, id: string) => ({
      id,
      type,
      channel_id: channelId,
      ...(channelId === channel.id ? { guild_id: b.fake.guildId } : {}),
      author: { id: ALICE.id, username: ALICE.username },
      content: "",
      mentions: [],
      attachments: [],
      timestamp: new Date().toISOString(),
    });
    b.fake.gateway.dispatch("MESSAGE_CREATE", system(6, dm.id, "1000000000000900"), dm.id);
    b.fake.gateway.dispatch(
      "MESSAGE_CREATE",
      system(7, channel.id, "1000000000000901"),
      channel.id,
    );
    b.fake.gateway.dispatch(
      "MESSAGE_CREATE",
      system(18, channel.id, "1000000000000902"),
      channel.id,
    );
    b.fake.post({ channelId: dm.id, author: ALICE, text: "a real message" });
    await eventually(
      () => b.run.handled.length,
      (n) => n >= 1,
      { what: "the real message" },
    );
    await pause(300);
    expect(b.run.handled.map((h) => h.input.body?.markdown)).toEqual(["a real message"]);
  });
});

describe("own edits", () => {
  it("the bot's own edits (live previews) are no message_edited events; a person's edit is", async () => {
    const events: string[] = [];
    const b = await openBench({
      receive: {
        eventHandler: (event) => void events.push(`${event.type}:${event.actor?.id ?? ""}`),
      },
    });
    const { channel } = b.channel();
    await b.startReceiver();
    const { message: mine } = b.fake.post({
      channelId: channel.id,
      author: { id: FAKE_BOT.id, username: FAKE_BOT.username, bot: true },
      text: "preview v1",
    });
    const { message: theirs } = b.fake.post({ channelId: channel.id, author: ALICE, text: "v1" });
    b.fake.edit(mine.json.id as string, "preview v2");
    b.fake.edit(theirs.json.id as string, "v2");
    await eventually(
      () => events,
      (e) => e.length >= 1,
      { what: "the person's edit" },
    );
    await pause(300);
    expect(events).toEqual([`message_edited:${ALICE.id}`]);
  });
});
