/**
 * The Telegram channel's contract harness: a fresh {@link FakeTelegram} per test, the real
 * adapter and polling receiver — the real grammY client — against it. qa-channel's workspace
 * test discovers `contractHarness` and runs the shared contract suite on it.
 *
 * The harness speaks the suite's platform-neutral terms (a `ContractHarness` from
 * `@herald/plugin-sdk/testing`: plugins import only the SDK).
 * Groups are forum supergroups, so threads are forum topics; message ids are herald's
 * `<chat_id>:<message_id>`.
 *
 * @module
 */
import type { MessageTarget } from "@herald/plugin-sdk/channel-message";
import type {
  ContractAuthor,
  ContractHarness,
  ContractPlatform,
  VisibleMessage,
} from "@herald/plugin-sdk/testing";
import {
  TELEGRAM_TEXT_LIMIT,
  type TelegramConfig,
  type TelegramConfigInput,
  telegramConfigSchema,
} from "../config.ts";
import { createTelegramAdapter, createTelegramReceiver } from "../index.ts";
import { SECRET_TOKEN_HEADER } from "../webhook.ts";
import {
  ALICE,
  FAKE_BOT,
  type FakeBotAccount,
  FakeTelegram,
  type FakeUser,
  OTHER_FAKE_BOT,
} from "./FakeTelegram.ts";

/** A third bot on the fake: the second account of the two-accounts contract test. */
export const SECOND_FAKE_BOT: FakeBotAccount = {
  id: 7000003,
  username: "second_test_bot",
  firstName: "second bot",
  token: "7000003:AAH4secondBotTokenForTests_Qz9",
};

/** The webhook secret token of contract runs in webhook mode (Telegram's `secret_token`). */
export const CONTRACT_WEBHOOK_SECRET = "contract-webhook-secret_T0ken";

/** The Bot API message fields that carry media. */
const MEDIA_FIELDS = ["photo", "document", "voice", "audio", "video", "sticker"] as const;

/** What the adapter needs to reach a fake (JSON, for crash-test children). */
export type TelegramConnection = {
  apiRoot: string;
  token: string;
  /** Absent: the config's default (Telegram's real limit). */
  maxTextLength?: number;
  /** @defaultValue 5_000 */
  requestTimeoutMs?: number;
  unknownSendPolicy: "hold" | "at_least_once";
  reconcile: "off" | "probe";
  /** The bot's username. @defaultValue FAKE_BOT's */
  botUsername?: string;
  /** `webhook`: the receiver is the webhook receiver with {@link CONTRACT_WEBHOOK_SECRET}. */
  receive?: "polling" | "webhook";
};

/**
 * The adapter config used against a fake: short timeouts, fast polling, and Telegram's rate
 * limits loosened (30/s per chat, 600/min per group) so the suite stays quick — the declared
 * limits are asserted by the plugin's own tests.
 */
export function testConfig(c: TelegramConnection, extra: TelegramConfigInput = {}): TelegramConfig {
  return telegramConfigSchema.parse({
    apiRoot: c.apiRoot,
    ...(c.maxTextLength !== undefined ? { maxTextLength: c.maxTextLength } : {}),
    unknownSendPolicy: c.unknownSendPolicy,
    reconcile: c.reconcile,
    requestTimeoutMs: c.requestTimeoutMs ?? 5_000,
    previewIntervalMs: 50,
    rateLimits: { perBotPerSecond: 30, perChatPerSecond: 30, perGroupPerMinute: 600 },
    receive:
      c.receive === "webhook"
        ? { mode: "webhook", secretTokenEnv: "TELEGRAM_WEBHOOK_SECRET" }
        : { mode: "polling", pollTimeoutSeconds: 2, pinnedPollIntervalMs: 50, retryDelayMs: 50 },
    botUsername: c.botUsername ?? FAKE_BOT.username,
    ...extra,
  });
}

/**
 * A running fake in the suite's terms: the SDK's `ContractPlatform`, plus the fake itself for
 * the plugin's own tests.
 */
export type TelegramContractPlatform = ContractPlatform<TelegramConnection> & {
  /** The running fake behind the platform-neutral face. */
  readonly fake: FakeTelegram;
};

const asUser = (bot: FakeBotAccount): FakeUser => ({
  id: bot.id,
  is_bot: true,
  first_name: bot.firstName,
  username: bot.username,
});

/** Who posts for each of the suite's authors. */
const AUTHORS: Record<ContractAuthor, FakeUser> = {
  user: ALICE,
  other_bot: asUser(OTHER_FAKE_BOT),
  self: asUser(FAKE_BOT),
  second_self: asUser(SECOND_FAKE_BOT),
};

/** Wraps a running fake in the suite's platform-neutral face. */
export function telegramContractPlatform(
  fake: FakeTelegram,
  connection: TelegramConnection,
): TelegramContractPlatform {
  // herald's ids are `<chat_id>:<message_id>`, the reply's too.
  const ref = (m: VisibleMessage): VisibleMessage => ({
    ...m,
    id: `${m.chat}:${m.id}`,
    ...(m.replyTo !== undefined ? { replyTo: `${m.chat}:${m.replyTo}` } : {}),
  });
  let webhook: ((request: Request) => Promise<Response>) | undefined;
  const webhookMode = connection.receive === "webhook";
  return {
    connection,
    fake,
    createTarget(kind) {
      if (kind === "direct") {
        const chat = fake.createChat({ type: "private", title: "Alice" });
        return { kind: "direct", id: String(chat.id) };
      }
      const chat = fake.createChat({ type: "supergroup", title: "contract group", forum: true });
      return { kind: "group", id: String(chat.id) };
    },
    createThread(target) {
      const topic = fake.createTopic(Number(target.id), "a question worth a thread");
      return { kind: "thread", id: target.id, parentId: target.id, threadId: String(topic) };
    },
    visible: (target) =>
      fake
        .messages(Number(target.id), {
          thread: target.threadId !== undefined ? Number(target.threadId) : null,
        })
        .map(ref),
    isTyping: (target) =>
      fake.state.isTyping(target.id, {
        userId: String(FAKE_BOT.id),
        ...(target.threadId !== undefined ? { thread: target.threadId } : {}),
      }),
    faults: fake.faults,
    calls: () => fake.server.calls,
    attachmentsOf(message) {
      const id = Number(message.id.slice(message.id.lastIndexOf(":") + 1));
      const json = fake.stored.get(id)?.json ?? {};
      return MEDIA_FIELDS.flatMap((kind) => {
        // A photo is an array of sizes (Bot API `PhotoSize[]`); other media one object.
        const field = json[kind] as { file_id?: string } | Array<{ file_id?: string }> | undefined;
        const file = Array.isArray(field) ? field.at(-1) : field;
        return file?.file_id ? [{ kind, source: file.file_id }] : [];
      });
    },
    inbound: {
      async post(target, message) {
        const from = AUTHORS[message.author ?? "user"];
        const { message: posted } = fake.userPost({
          chat: Number(target.id),
          text: message.text,
          from,
          ...(target.threadId !== undefined ? { thread: Number(target.threadId) } : {}),
        });
        // Every bot in the group sees it (privacy mode off): the second account's queue too.
        fake.pushUpdate({ message: posted }, SECOND_FAKE_BOT.id);
        return { platformMessageId: `${target.id}:${posted.message_id}` };
      },
      async redeliver(platformMessageId) {
        const id = Number(platformMessageId.slice(platformMessageId.lastIndexOf(":") + 1));
        fake.redeliver(id);
        // To the second account's bot too, as `post` does. (The real Bot API never shows a
        // bot's message to another bot; the contract still checks what herald would do.)
        fake.redeliver(id, SECOND_FAKE_BOT.id);
      },
      ...(webhookMode
        ? {
            connectWebhook(handler: (request: Request) => Promise<Response>, accountId?: string) {
              if (accountId === "second") {
                fake.connectWebhook(
                  { handler, secretToken: CONTRACT_WEBHOOK_SECRET },
                  SECOND_FAKE_BOT.id,
                );
                return;
              }
              webhook = handler;
              fake.connectWebhook({ handler, secretToken: CONTRACT_WEBHOOK_SECRET });
            },
            async forge(kind: "forged" | "missing" | "stale", target: MessageTarget) {
              if (!webhook) throw new Error("telegram harness: no webhook connected");
              const update = {
                update_id: 990_000_001,
                message: {
                  message_id: 990_001,
                  date: Math.floor(Date.now() / 1_000),
                  chat: { id: Number(target.id), type: "supergroup", title: "contract group" },
                  from: ALICE,
                  text: `a ${kind} delivery`,
                },
              };
              const token = kind === "missing" ? undefined : `${CONTRACT_WEBHOOK_SECRET}x`;
              return webhook(
                new Request("http://127.0.0.1/webhook", {
                  method: "POST",
                  headers: {
                    "content-type": "application/json",
                    ...(token ? { [SECRET_TOKEN_HEADER]: token } : {}),
                  },
                  body: JSON.stringify(update),
                }),
              );
            },
            // Telegram's secret token carries no timestamp: there is no stale delivery.
            forgeKinds: ["forged", "missing"] as const,
          }
        : {}),
    },
    secondAccount: {
      accountId: "second",
      connection: {
        ...connection,
        token: SECOND_FAKE_BOT.token,
        botUsername: SECOND_FAKE_BOT.username,
      },
    },
    close: () => fake.close(),
  };
}

/** A Telegram contract harness: the SDK's `ContractHarness` for Telegram connections. */
export type TelegramContractHarness = ContractHarness<TelegramConnection>;

/** Options of {@link telegramHarness}. */
export type TelegramHarnessOptions = {
  /** @defaultValue "hold" */
  unknownSendPolicy?: "hold" | "at_least_once";
  /** @defaultValue "off" */
  reconcile?: "off" | "probe";
};

/**
 * A Telegram contract harness. The fake's text limit is Telegram's; the adapter chunks to the
 * suite's small `maxLength` hint so multi-part tests stay cheap.
 */
export function telegramHarness(options: TelegramHarnessOptions = {}): TelegramContractHarness {
  const unknownSendPolicy = options.unknownSendPolicy ?? "hold";
  const reconcile = options.reconcile ?? "off";
  const variant = [
    unknownSendPolicy !== "hold" ? unknownSendPolicy : "",
    reconcile !== "off" ? `reconcile ${reconcile}` : "",
  ].filter(Boolean);
  return {
    name: variant.length ? `telegram, ${variant.join(", ")}` : "telegram",
    // No idempotency key on Telegram; the probe proves "sent", never "not sent" (best effort).
    guarantee:
      reconcile === "probe"
        ? "reconcile-best-effort"
        : unknownSendPolicy === "at_least_once"
          ? "at-least-once"
          : "hold",
    module: { url: import.meta.url, exportName: "telegramHarness", args: options },
    accountId: "main",
    secrets: [FAKE_BOT.token, CONTRACT_WEBHOOK_SECRET],
    platformLimits: { maxLength: TELEGRAM_TEXT_LIMIT },
    async platform({ maxLength, requestTimeoutMs, adapterDefaults, receive }) {
      const fake = await FakeTelegram.start({ bots: [FAKE_BOT, OTHER_FAKE_BOT, SECOND_FAKE_BOT] });
      return telegramContractPlatform(fake, {
        apiRoot: fake.apiRoot,
        token: FAKE_BOT.token,
        ...(adapterDefaults
          ? {}
          : { maxTextLength: Math.min(Math.max(maxLength, 2), TELEGRAM_TEXT_LIMIT) }),
        ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
        unknownSendPolicy,
        reconcile,
        ...(receive === "webhook" ? { receive } : {}),
      });
    },
    createAdapter: (c) => createTelegramAdapter(testConfig(c), c.token),
    createReceiver: (c, sink) =>
      createTelegramReceiver(testConfig(c), c.token, sink, CONTRACT_WEBHOOK_SECRET),
  };
}

/** The Telegram harness for the shared contract suite (discovered by qa-channel's test run). */
export const contractHarness: TelegramContractHarness = telegramHarness();
