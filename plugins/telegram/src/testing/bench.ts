/**
 * The plugin's own test bench: a fresh fake Bot API, the real adapter on it, a real herald
 * runtime on an in-memory SQLite store, and a logger that keeps every line (errors serialized
 * with their causes) so tests can grep them for the token. Torn down when the test finishes.
 * Internal to this package's tests (not exported from `./testing`).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type {
  ChannelMessage,
  ChannelMessageAdapter,
  ChannelPluginDeps,
  ChannelReceiver,
  MessageTarget,
} from "@herald/plugin-sdk/channel-message";
import {
  createMessageRuntime,
  createReceiverSink,
  type DurableSendIntent,
  eventually,
  isHeldForOperator,
  type MessageReceiveContext,
  type MessageRuntime,
  type ReceiveOutcome,
  type ReceiveRuntimeOptions,
  SqliteStateStore,
} from "@herald/plugin-sdk/testing";
import { onTestFinished } from "vitest";
import type { TelegramConfig, TelegramConfigInput } from "../config.ts";
import { createTelegramAdapter, createTelegramReceiver } from "../index.ts";
import { FAKE_BOT, type FakeChat, FakeTelegram, type FakeTelegramOptions } from "./FakeTelegram.ts";
import { testConfig } from "./harness.ts";

type Logger = ChannelPluginDeps["logger"];

/** Serializes a log entry with every error field (message, stack, causes, own properties). */
function serialize(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Error) {
      const out: Record<string, unknown> = { name: v.name, message: v.message, stack: v.stack };
      for (const k of Object.getOwnPropertyNames(v))
        out[k] = (v as unknown as Record<string, unknown>)[k];
      if (v.cause !== undefined) out.cause = v.cause;
      return out;
    }
    if (v && typeof v === "object") {
      if (seen.has(v)) return "[circular]";
      seen.add(v);
    }
    return v;
  });
}

/** A logger that records every line. */
export function recordingLogger(lines: string[], bindings: object = {}): Logger {
  const write = (level: string) => (obj: object, msg?: string) => {
    lines.push(serialize({ level, ...bindings, ...obj, msg }));
  };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}

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
  /** Delivery backoff and waits (fast by default). */
  delivery?: Parameters<typeof createMessageRuntime>[0]["delivery"];
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
  /** Starts the configured receiver (polling by default) into the runtime. */
  startReceiver(): Promise<ChannelReceiver>;
};

/** Fast delivery settings for tests. */
export const BENCH_DELIVERY = {
  pollIntervalMs: 10,
  leaseMs: 5_000,
  maxInMemoryWaitMs: 2_000,
  recoveryBudgetMs: 2_000,
  backoff: { baseMs: 40, maxMs: 300, maxAttempts: 8 },
};

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
  const adapter = createTelegramAdapter(config, FAKE_BOT.token);
  const store = new SqliteStateStore({ path: ":memory:" });
  const logLines: string[] = [];
  const logger = recordingLogger(logLines);
  const handled: MessageReceiveContext[] = [];
  const outcomes: ReceiveOutcome[] = [];
  const runtime = createMessageRuntime({
    store,
    adapters: [adapter],
    logger,
    random: () => 0.5,
    ...(options.clock ? { clock: options.clock } : {}),
    delivery: options.delivery ?? BENCH_DELIVERY,
    live: { recoveryIntervalMs: 0 },
    receive: {
      loopGuard: false,
      ...options.receive,
      handler: async (ctx) => {
        handled.push(ctx);
        await options.handler?.(ctx);
      },
    },
  });
  await runtime.start();
  let receiver: ChannelReceiver | undefined;
  onTestFinished(async () => {
    await receiver?.stop?.();
    await runtime.stop(1_000);
    await store.close();
    await fake.close();
  });
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
    message: (target, markdown, extra = {}) => ({
      id: randomUUID(),
      channel: adapter.id,
      accountId: "main",
      direction: "outbound",
      target,
      body: { markdown },
      ...extra,
    }),
    intent: (key) => store.getIntentByIdempotencyKey(key),
    settled: (key, timeoutMs = 8_000) =>
      eventually(
        () => store.getIntentByIdempotencyKey(key),
        (i) =>
          i !== undefined &&
          (i.status === "sent" ||
            i.status === "failed" ||
            i.status === "cancelled" ||
            isHeldForOperator(i)),
        { timeoutMs, what: `intent ${key} to settle` },
      ) as Promise<DurableSendIntent>,
    async startReceiver() {
      const sink = createReceiverSink(runtime, {
        channel: adapter.id,
        accountId: "main",
        logger,
        onTicket: (ticket) => void ticket.done.then((o) => outcomes.push(o)),
      });
      receiver = createTelegramReceiver(config, FAKE_BOT.token, sink, "webhook-secret_token-123");
      await receiver.start?.();
      return receiver;
    },
  };
  return bench;
}
