/**
 * The Telegram channel's contract harness: a fresh {@link FakeTelegram} per test, the real
 * adapter and polling receiver — the real grammY client — against it. qa-channel's workspace
 * test discovers `contractHarness` and runs the shared contract suite on it.
 *
 * The harness speaks the suite's platform-neutral terms (a `ContractHarness` of
 * `@herald/plugin-qa-channel/contract`, matched structurally: plugins import only the SDK).
 * Groups are forum supergroups, so threads are forum topics; message ids are herald's
 * `<chat_id>:<message_id>`.
 *
 * @module
 */
import type {
  ChannelMessageAdapter,
  ChannelReceiver,
  ChannelReceiverSink,
  MessageTarget,
} from "@herald/plugin-sdk/channel-message";
import type { FaultTarget, PlatformFault, VisibleMessage } from "@herald/plugin-sdk/testing";
import { type TelegramConfig, type TelegramConfigInput, telegramConfigSchema } from "../config.ts";
import { createTelegramAdapter, createTelegramReceiver } from "../index.ts";
import { ALICE, FAKE_BOT, FakeTelegram, OTHER_FAKE_BOT } from "./FakeTelegram.ts";

/** What the adapter needs to reach a fake (JSON, for crash-test children). */
export type TelegramConnection = {
  apiRoot: string;
  token: string;
  maxTextLength: number;
  unknownSendPolicy: "hold" | "at_least_once";
  reconcile: "off" | "probe";
};

/**
 * The adapter config used against a fake: short timeouts, fast polling, and Telegram's rate
 * limits loosened (30/s per chat, 600/min per group) so the suite stays quick — the declared
 * limits are asserted by the plugin's own tests.
 */
export function testConfig(c: TelegramConnection, extra: TelegramConfigInput = {}): TelegramConfig {
  return telegramConfigSchema.parse({
    apiRoot: c.apiRoot,
    maxTextLength: c.maxTextLength,
    unknownSendPolicy: c.unknownSendPolicy,
    reconcile: c.reconcile,
    requestTimeoutMs: 5_000,
    previewIntervalMs: 50,
    rateLimits: { perBotPerSecond: 30, perChatPerSecond: 30, perGroupPerMinute: 600 },
    receive: { mode: "polling", pollTimeoutSeconds: 2, pinnedPollIntervalMs: 50, retryDelayMs: 50 },
    botUsername: FAKE_BOT.username,
    ...extra,
  });
}

/** A running fake in the suite's terms. */
export type TelegramContractPlatform = {
  readonly connection: TelegramConnection;
  readonly fake: FakeTelegram;
  createTarget(kind: "direct" | "group"): MessageTarget;
  createThread(target: MessageTarget): MessageTarget;
  visible(target: MessageTarget): VisibleMessage[];
  isTyping(target: MessageTarget): boolean;
  readonly faults: {
    failNext(fault: PlatformFault, target?: FaultTarget): unknown;
    refuseConnections(): Promise<() => Promise<void>>;
  };
  readonly inbound: {
    post(
      target: MessageTarget,
      message: { text: string; author?: "user" | "other_bot" | "self" },
    ): Promise<{ platformMessageId: string }>;
    redeliver(platformMessageId: string): Promise<void>;
  };
  close(): Promise<void>;
};

/** Wraps a running fake in the suite's platform-neutral face. */
export function telegramContractPlatform(
  fake: FakeTelegram,
  connection: TelegramConnection,
): TelegramContractPlatform {
  const ref = (m: VisibleMessage): VisibleMessage => ({ ...m, id: `${m.chat}:${m.id}` });
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
    inbound: {
      async post(target, message) {
        const from =
          message.author === "self"
            ? {
                id: FAKE_BOT.id,
                is_bot: true,
                first_name: FAKE_BOT.firstName,
                username: FAKE_BOT.username,
              }
            : message.author === "other_bot"
              ? {
                  id: OTHER_FAKE_BOT.id,
                  is_bot: true,
                  first_name: OTHER_FAKE_BOT.firstName,
                  username: OTHER_FAKE_BOT.username,
                }
              : ALICE;
        const { message: posted } = fake.userPost({
          chat: Number(target.id),
          text: message.text,
          from,
          ...(target.threadId !== undefined ? { thread: Number(target.threadId) } : {}),
        });
        return { platformMessageId: `${target.id}:${posted.message_id}` };
      },
      async redeliver(platformMessageId) {
        fake.redeliver(Number(platformMessageId.slice(platformMessageId.lastIndexOf(":") + 1)));
      },
    },
    close: () => fake.close(),
  };
}

/** A Telegram contract harness (the suite's `ContractHarness`, structurally). */
export type TelegramContractHarness = {
  name: string;
  /** The suite's `ContractGuarantee` for unknown sends. */
  guarantee: "reconcile-best-effort" | "at-least-once" | "hold";
  module: { url: string; exportName?: string; args?: TelegramHarnessOptions };
  accountId: string;
  platform(options: { maxLength: number }): Promise<TelegramContractPlatform>;
  createAdapter(connection: TelegramConnection): ChannelMessageAdapter;
  createReceiver(connection: TelegramConnection, sink: ChannelReceiverSink): ChannelReceiver;
};

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
    async platform({ maxLength }) {
      const fake = await FakeTelegram.start();
      return telegramContractPlatform(fake, {
        apiRoot: fake.apiRoot,
        token: FAKE_BOT.token,
        maxTextLength: Math.min(Math.max(maxLength, 2), 4096),
        unknownSendPolicy,
        reconcile,
      });
    },
    createAdapter: (c) => createTelegramAdapter(testConfig(c), c.token),
    createReceiver: (c, sink) => createTelegramReceiver(testConfig(c), c.token, sink),
  };
}

/** The Telegram harness for the shared contract suite (discovered by qa-channel's test run). */
export const contractHarness: TelegramContractHarness = telegramHarness();
