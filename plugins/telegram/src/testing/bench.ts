/**
 * The plugin's own test bench: a fresh fake Bot API, the real adapter on it, a real herald
 * runtime on an in-memory SQLite store, and a logger that keeps every line (errors serialized
 * with their causes) so tests can grep them for the token. Torn down when the test finishes.
 * Internal to this package's tests (not exported from `./testing`).
 *
 * @module
 */
import type {
  ChannelMessage,
  ChannelMessageAdapter,
  ChannelReceiver,
  MessageTarget,
} from "@herald/plugin-sdk/channel-message";
import {
  type DeliveryOptions,
  type DurableSendIntent,
  type MessageReceiveContext,
  type MessageRuntime,
  openTestRun,
  type ReceiveOutcome,
  type ReceiveRuntimeOptions,
  type SqliteStateStore,
  TEST_RUN_DELIVERY,
} from "@herald/plugin-sdk/testing";
import { onTestFinished } from "vitest";
import type { TelegramConfig, TelegramConfigInput } from "../config.ts";
import { createTelegramAdapter, createTelegramApi, createTelegramReceiver } from "../index.ts";
import { createPollingReceiver, type PollingReceiverOptions } from "../receiver.ts";
import { FAKE_BOT, type FakeChat, FakeTelegram, type FakeTelegramOptions } from "./FakeTelegram.ts";
import { testConfig } from "./harness.ts";

/** Options of {@link openBench}. */
export type BenchOptions = {
  /** Adapter config on top of the harness's test config. */
  config?: TelegramConfigInput;
  receive?: Omit<ReceiveRuntimeOptions, "handler">;
  handler?: (ctx: MessageReceiveContext) => Promise<void> | void;
  /** Epoch-ms clock of the runtime. */
  clock?: () => number;
  /** Options of the fake Bot API. */
  fake?: FakeTelegramOptions;
  /** The bot token the adapter is given (as the environment holds it). @defaultValue FAKE_BOT.token */
  token?: string;
  /** Delivery backoff and waits (fast by default). */
  delivery?: DeliveryOptions;
};

/** A running bench. */
export type Bench = {
  fake: FakeTelegram;
  config: TelegramConfig;
  adapter: ChannelMessageAdapter;
  runtime: MessageRuntime;
  store: SqliteStateStore;
  /** Every log line of the runtime and the receiver. */
  logLines: string[];
  handled: MessageReceiveContext[];
  outcomes: ReceiveOutcome[];
  /** A private chat with a new user. */
  dm(): { chat: FakeChat; target: MessageTarget };
  /** A forum supergroup (General = top level). */
  forum(): { chat: FakeChat; target: MessageTarget };
  /** An outbound message. */
  message(target: MessageTarget, markdown: string, extra?: Partial<ChannelMessage>): ChannelMessage;
  intent(key: string): Promise<DurableSendIntent | undefined>;
  /** Waits until an intent is sent, failed, cancelled or held for an operator. */
  settled(key: string, timeoutMs?: number): Promise<DurableSendIntent>;
  /**
   * Starts the configured receiver (polling by default) into the runtime; `pacing` gives the
   * polling receiver a clock and a sleep (manual time, CASES C42).
   */
  startReceiver(pacing?: Pick<PollingReceiverOptions, "clock" | "sleep">): Promise<ChannelReceiver>;
};

/** Fast delivery settings for tests (the SDK's test-run defaults). */
export const BENCH_DELIVERY = TEST_RUN_DELIVERY;

/** Opens a bench for the current test. */
export async function openBench(options: BenchOptions = {}): Promise<Bench> {
  const fake = await FakeTelegram.start(options.fake);
  const config = testConfig(
    {
      apiRoot: fake.apiRoot,
      token: FAKE_BOT.token,
      maxTextLength: 4096,
      unknownSendPolicy: "hold",
      reconcile: "off",
    },
    options.config,
  );
  const adapter = createTelegramAdapter(config, options.token ?? FAKE_BOT.token);
  const run = await openTestRun({
    adapters: [adapter],
    accountId: "main",
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.delivery ? { delivery: options.delivery } : {}),
    ...(options.receive ? { receive: options.receive } : {}),
    ...(options.handler ? { handler: options.handler } : {}),
  });
  let receiver: ChannelReceiver | undefined;
  run.onClose(() => receiver?.stop?.());
  onTestFinished(async () => {
    await run.close();
    await fake.close();
  });
  const { runtime, store, logLines, handled, outcomes } = run;
  const bench: Bench = {
    fake,
    config,
    adapter,
    runtime,
    store,
    logLines,
    handled,
    outcomes,
    dm() {
      const chat = fake.createChat({ type: "private", title: "Alice" });
      return { chat, target: { kind: "direct", id: String(chat.id) } };
    },
    forum() {
      const chat = fake.createChat({ type: "supergroup", title: "forum", forum: true });
      return { chat, target: { kind: "group", id: String(chat.id) } };
    },
    message: (target, markdown, extra = {}) => run.message(adapter.id, target, markdown, extra),
    intent: run.intent,
    settled: run.settled,
    async startReceiver(pacing) {
      const receive = config.receive;
      receiver =
        pacing && receive.mode === "polling"
          ? createPollingReceiver({
              api: createTelegramApi({ token: FAKE_BOT.token, apiRoot: config.apiRoot }),
              sink: run.sink(adapter.id),
              config: receive,
              ...pacing,
            })
          : createTelegramReceiver(
              config,
              FAKE_BOT.token,
              run.sink(adapter.id),
              "webhook-secret_token-123",
            );
      await receiver.start?.();
      return receiver;
    },
  };
  return bench;
}
