/**
 * The Discord channel's contract harness: a fresh {@link FakeDiscord} per test and the real
 * adapter — the real `@discordjs/rest` client — and the real gateway receiver — discord.js's
 * `Client` — against it. qa-channel's workspace test
 * discovers `contractHarness` and runs the shared contract suite on it.
 *
 * The harness speaks the suite's platform-neutral terms (the SDK's `ContractHarness`: plugins import
 * only the SDK). Groups are guild text channels, threads are threads started from a user's
 * message, message ids are herald's `<channel_id>:<message_id>`. The guarantee is
 * `native-key`: Discord's enforced nonce deduplicates every replay within its window.
 *
 * @module
 */
import type {
  ContractAuthor,
  ContractHarness,
  ContractPlatform,
  VisibleMessage,
} from "@herald/plugin-sdk/testing";
import {
  DISCORD_TEXT_LIMIT,
  type DiscordConfig,
  type DiscordConfigInput,
  discordConfigSchema,
} from "../config.ts";
import { createDiscordAdapter, createDiscordReceiver } from "../index.ts";
import {
  ALICE,
  FAKE_BOT,
  type FakeBotAccount,
  FakeDiscord,
  type FakeUser,
  OTHER_FAKE_BOT,
  SECOND_FAKE_BOT,
} from "./FakeDiscord.ts";
import { discordReactionsOn } from "./fakeReactions.ts";

/** What the adapter needs to reach a fake (JSON, for crash-test children). */
export type DiscordConnection = {
  apiBase: string;
  token: string;
  /** Absent: the config's default (Discord's real limit). */
  maxTextLength?: number;
  /** @defaultValue 5_000 */
  requestTimeoutMs?: number;
  unknownSendPolicy: "hold" | "at_least_once";
};

/**
 * The adapter config used against a fake: short timeouts, private addresses allowed for media
 * (the fake's files are on 127.0.0.1), Discord's per-channel limit loosened so the suite stays
 * quick — the declared limits are asserted by the plugin's own tests.
 */
export function testConfig(c: DiscordConnection, extra: DiscordConfigInput = {}): DiscordConfig {
  return discordConfigSchema.parse({
    apiBase: c.apiBase,
    ...(c.maxTextLength !== undefined ? { maxTextLength: c.maxTextLength } : {}),
    unknownSendPolicy: c.unknownSendPolicy,
    requestTimeoutMs: c.requestTimeoutMs ?? 5_000,
    rateLimits: { globalPerSecond: 50, perChannel: 1_000, perChannelIntervalMs: 1_000 },
    media: { allowPrivateNetworks: true },
    typingRefreshMs: 1_000,
    ...extra,
  });
}

/**
 * A running fake in the suite's terms: the SDK's `ContractPlatform`, plus the fake itself for
 * the plugin's own tests.
 */
export type DiscordContractPlatform = ContractPlatform<DiscordConnection> & {
  /** The running fake behind the platform-neutral face. */
  readonly fake: FakeDiscord;
};

const asUser = (bot: FakeBotAccount): FakeUser => ({
  id: bot.id,
  username: bot.username,
  bot: true,
});

/** Who posts for each of the suite's authors. */
const AUTHORS: Record<ContractAuthor, FakeUser> = {
  user: ALICE,
  other_bot: asUser(OTHER_FAKE_BOT),
  self: asUser(FAKE_BOT),
  second_self: asUser(SECOND_FAKE_BOT),
};

/** Wraps a running fake in the suite's platform-neutral face. */
export function discordContractPlatform(
  fake: FakeDiscord,
  connection: DiscordConnection,
): DiscordContractPlatform {
  // herald's ids are `<channel_id>:<message_id>`, the reply's too.
  const ref = (m: VisibleMessage): VisibleMessage => ({
    ...m,
    id: `${m.chat}:${m.id}`,
    ...(m.replyTo !== undefined ? { replyTo: `${m.chat}:${m.replyTo}` } : {}),
  });
  return {
    connection,
    fake,
    createTarget(kind) {
      if (kind === "direct") {
        const dm = fake.createChannel({ type: "dm", name: "alice" });
        return { kind: "direct", id: dm.id };
      }
      const channel = fake.createChannel({ type: "text", name: "contract" });
      return { kind: "group", id: channel.id, spaceId: fake.guildId };
    },
    createThread(target) {
      const { message } = fake.post({
        channelId: target.id,
        author: ALICE,
        text: "a question worth a thread",
      });
      const thread = fake.startThread(message.json.id as string, "a question worth a thread");
      return { kind: "thread", id: target.id, parentId: target.id, threadId: thread.id };
    },
    visible: (target) => fake.messages(target.threadId ?? target.id).map(ref),
    isTyping: (target) =>
      fake.state.isTyping(target.id, {
        userId: FAKE_BOT.id,
        ...(target.threadId !== undefined ? { thread: target.threadId } : {}),
      }),
    calls: () => fake.server.calls,
    // [H23] What the fake shows of reactions and people's posts. No `click`: Discord buttons
    // carry no `value` (the suite's round trip checks one); no files yet.
    features: {
      botReactions: (_target, id) =>
        Object.entries(discordReactionsOn(fake, id.slice(id.lastIndexOf(":") + 1)))
          .filter(([, users]) => users.includes(FAKE_BOT.id))
          .map(([emoji]) => emoji),
      dmUserId: ALICE.id,
      post(target, text) {
        const channelId = target.threadId ?? target.id;
        const { message } = fake.post({ channelId, author: ALICE, text });
        return `${channelId}:${message.json.id}`;
      },
    },
    expireKeys: () => fake.expireNonces(),
    attachmentsOf(message) {
      const stored = fake.stored.get(message.id.slice(message.id.lastIndexOf(":") + 1));
      if (!stored) return [];
      const images = (stored.embeds as Array<{ image?: { url?: string } }>)
        .filter((e) => e.image?.url)
        .map((e) => ({ kind: "image", source: e.image?.url as string }));
      return [...images, ...stored.files.map((f) => ({ kind: "file", source: f.name }))];
    },
    faults: {
      failNext: (fault, target) => fake.faults.failNext(fault, target),
      refuseConnections: () => fake.faults.refuseConnections(),
      dropConnections() {
        void fake.gateway.dropAll();
        fake.faults.dropConnections();
      },
    },
    inbound: {
      async post(target, message) {
        const author = AUTHORS[message.author ?? "user"];
        const channelId = target.threadId ?? target.id;
        const { message: posted } = fake.post({ channelId, author, text: message.text });
        return { platformMessageId: `${channelId}:${posted.json.id}` };
      },
      async redeliver(platformMessageId) {
        fake.gateway.redispatch(platformMessageId.slice(platformMessageId.lastIndexOf(":") + 1));
      },
    },
    secondAccount: {
      accountId: "second",
      connection: { ...connection, token: SECOND_FAKE_BOT.token },
    },
    close: () => fake.close(),
  };
}

/** Options of {@link discordHarness}. */
export type DiscordHarnessOptions = {
  /** What happens past the nonce window. @defaultValue "hold" */
  unknownSendPolicy?: "hold" | "at_least_once";
};

/** A Discord contract harness: the SDK's `ContractHarness` for Discord connections. */
export type DiscordContractHarness = ContractHarness<DiscordConnection>;

/**
 * A Discord contract harness. The fake's limits are Discord's; the adapter chunks to the
 * suite's small `maxLength` hint so multi-part tests stay cheap.
 */
export function discordHarness(options: DiscordHarnessOptions = {}): DiscordContractHarness {
  const unknownSendPolicy = options.unknownSendPolicy ?? "hold";
  return {
    name: unknownSendPolicy === "hold" ? "discord" : `discord, ${unknownSendPolicy}`,
    guarantee: "native-key",
    module: { url: import.meta.url, exportName: "discordHarness", args: options },
    accountId: "main",
    secrets: [FAKE_BOT.token],
    platformLimits: { maxLength: DISCORD_TEXT_LIMIT },
    async platform({ maxLength, requestTimeoutMs, adapterDefaults }) {
      const fake = await FakeDiscord.start({ buckets: { limit: 1_000, windowMs: 1_000 } });
      return discordContractPlatform(fake, {
        apiBase: fake.apiBase,
        token: FAKE_BOT.token,
        ...(adapterDefaults
          ? {}
          : { maxTextLength: Math.min(Math.max(maxLength, 2), DISCORD_TEXT_LIMIT) }),
        ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
        unknownSendPolicy,
      });
    },
    createAdapter: (c) => createDiscordAdapter(testConfig(c), c.token),
    createReceiver: (c, sink) => createDiscordReceiver(testConfig(c), c.token, sink),
  };
}

/** The Discord harness for the shared contract suite (discovered by qa-channel's test run). */
export const contractHarness: DiscordContractHarness = discordHarness();
