/**
 * The contract harness of the HTTP chat channel: a fresh {@link FakeHttpChat} per test, the real
 * adapter (real `fetch` client) and the real webhook receiver against it. Free of Vitest imports:
 * crash-test children load this module with plain Node.
 *
 * @module
 */
import type { ContractHarness } from "@herald/plugin-sdk/testing";
import httpChatPlugin, {
  createHttpChatAdapter,
  createHttpChatReceiver,
  decodeOrigin,
  HTTPCHAT_MAX_TEXT,
  httpChatConfigSchema,
} from "../index.ts";
import { ALICE, FAKE_BOT, FakeHttpChat, OTHER_BOT, SECOND_BOT } from "./FakeHttpChat.ts";

/** What the adapter needs to reach a fake (JSON, for crash-test children). */
export type HttpChatConnection = {
  baseUrl: string;
  token: string;
  webhookSecret: string;
  botId: string;
  /** Absent: the config's default (the API's real limit). */
  maxLength?: number;
  /** @defaultValue 5_000 */
  requestTimeoutMs?: number;
};

/** The HTTP chat channel's harness for `describeChannelContract`. */
export const contractHarness: ContractHarness<HttpChatConnection> = {
  name: "httpchat",
  guarantee: "native-key", // every send carries a client key the API deduplicates
  module: { url: import.meta.url },
  secrets: [FAKE_BOT.token, FAKE_BOT.webhookSecret],
  platformLimits: { maxLength: HTTPCHAT_MAX_TEXT },
  async platform({ maxLength, requestTimeoutMs, adapterDefaults }) {
    const fake = await FakeHttpChat.start();
    const authors = {
      user: ALICE,
      other_bot: OTHER_BOT,
      self: { id: FAKE_BOT.id, name: FAKE_BOT.name, bot: true },
      second_self: { id: SECOND_BOT.id, name: SECOND_BOT.name, bot: true },
    };
    const connection: HttpChatConnection = {
      baseUrl: fake.url,
      token: FAKE_BOT.token,
      webhookSecret: FAKE_BOT.webhookSecret,
      botId: FAKE_BOT.id,
      ...(adapterDefaults ? {} : { maxLength }),
      ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    };
    return {
      connection,
      secondAccount: {
        accountId: "second",
        connection: {
          ...connection,
          token: SECOND_BOT.token,
          webhookSecret: SECOND_BOT.webhookSecret,
          botId: SECOND_BOT.id,
        },
      },
      createTarget: (kind) => ({ kind, id: fake.createChat(kind) }),
      createThread: (target) => ({
        ...target,
        kind: "thread",
        threadId: fake.say(ALICE, target.id, "a thread starts here").id,
      }),
      visible: (target) =>
        fake.state.messages({ chat: target.id, thread: target.threadId ?? null }),
      isTyping: (target) => fake.state.isTyping(target.id, { userId: FAKE_BOT.id }),
      faults: fake.server.faults,
      calls: () => fake.server.calls,
      storedOrigin: (message) =>
        decodeOrigin({ type: "message.created", message: fake.wire(message) }),
      expireKeys() {
        fake.state.keyTtlMs = 0;
      },
      inbound: {
        nativeOrigin: true,
        post: async (target, m) => {
          const extra = {
            ...(target.threadId ? { thread: target.threadId } : {}),
            ...(m.origin ? { origin: m.origin } : {}),
          };
          return {
            platformMessageId: fake.say(authors[m.author ?? "user"], target.id, m.text, extra).id,
          };
        },
        redeliver: async (id) => fake.redeliver(id, { newEventId: true }),
        connectWebhook: (handler, accountId) =>
          fake.connectWebhook(handler, accountId === "second" ? SECOND_BOT.id : FAKE_BOT.id),
        forge: (kind, target) => fake.forge(kind, target.id),
      },
      close: () => fake.close(),
    };
  },
  // The account config's defaults (the real text limit) where the connection names none.
  createAdapter: ({ maxLength, requestTimeoutMs, ...c }) => {
    const config = httpChatConfigSchema.parse({
      baseUrl: c.baseUrl,
      tokenEnv: "HTTPCHAT_TOKEN",
      webhookSecretEnv: "HTTPCHAT_WEBHOOK_SECRET",
      ...(maxLength !== undefined ? { maxLength } : {}),
      requestTimeoutMs: requestTimeoutMs ?? 5_000,
    });
    return createHttpChatAdapter(config, c.token, c.botId);
  },
  createReceiver: (c, sink) => createHttpChatReceiver(c.webhookSecret, sink),
  // The suite loads the plugin as a gateway does: this config, these env vars, createAccount.
  plugin: {
    plugin: httpChatPlugin,
    config: (c) => ({
      baseUrl: c.baseUrl,
      tokenEnv: "HTTPCHAT_TOKEN",
      webhookSecretEnv: "HTTPCHAT_WEBHOOK_SECRET",
    }),
    env: (c) => ({ HTTPCHAT_TOKEN: c.token, HTTPCHAT_WEBHOOK_SECRET: c.webhookSecret }),
  },
};
