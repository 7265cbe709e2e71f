/**
 * The plugin's own test bench: a fresh fake Discord, the real adapter on it, a real herald
 * runtime on an in-memory SQLite store, torn down when the test finishes. Internal to this
 * package's tests (not exported from `./testing`).
 *
 * @module
 */
import type {
  ChannelMessage,
  ChannelMessageAdapter,
  MessageTarget,
} from "@herald/plugin-sdk/channel-message";
import {
  type DeliveryOptions,
  type DurableSendIntent,
  type MessageReceiveContext,
  type MessageRuntime,
  openTestRun,
  type ReceiveRuntimeOptions,
  type SqliteStateStore,
  type TestRun,
} from "@herald/plugin-sdk/testing";
import { onTestFinished } from "vitest";
import type { DiscordConfig, DiscordConfigInput } from "../config.ts";
import { createDiscordAdapter } from "../index.ts";
import { DiscordIdentity, OutboundRegistry } from "../origin.ts";
import { createGatewayReceiver } from "../receiver.ts";
import { FAKE_BOT, type FakeChannel, FakeDiscord, type FakeDiscordOptions } from "./FakeDiscord.ts";
import { testConfig } from "./harness.ts";

/** Options of {@link openBench}. */
export type BenchOptions = {
  config?: DiscordConfigInput;
  fake?: FakeDiscordOptions;
  receive?: Omit<ReceiveRuntimeOptions, "handler">;
  handler?: (ctx: MessageReceiveContext) => Promise<void> | void;
  clock?: () => number;
  delivery?: DeliveryOptions;
};

/** A running bench. */
export type Bench = {
  fake: FakeDiscord;
  config: DiscordConfig;
  adapter: ChannelMessageAdapter;
  identity: DiscordIdentity;
  registry: OutboundRegistry;
  run: TestRun;
  runtime: MessageRuntime;
  store: SqliteStateStore;
  /** A guild text channel. */
  channel(): { channel: FakeChannel; target: MessageTarget };
  message(target: MessageTarget, markdown: string, extra?: Partial<ChannelMessage>): ChannelMessage;
  /** Starts the gateway receiver (the real discord.js Client) into the runtime. */
  startReceiver(): Promise<ReturnType<typeof createGatewayReceiver>>;
  intent(key: string): Promise<DurableSendIntent | undefined>;
  settled(key: string, timeoutMs?: number): Promise<DurableSendIntent>;
};

/** Opens a bench for the current test. */
export async function openBench(options: BenchOptions = {}): Promise<Bench> {
  const fake = await FakeDiscord.start({
    buckets: { limit: 1_000, windowMs: 1_000 },
    ...options.fake,
  });
  const config = testConfig(
    { apiBase: fake.apiBase, token: FAKE_BOT.token, unknownSendPolicy: "hold" },
    options.config,
  );
  const identity = new DiscordIdentity({
    userId: FAKE_BOT.id,
    applicationId: FAKE_BOT.applicationId,
  });
  const registry = new OutboundRegistry();
  const adapter = createDiscordAdapter(config, FAKE_BOT.token, registry, identity);
  const run = await openTestRun({
    adapters: [adapter],
    accountId: "main",
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.delivery ? { delivery: options.delivery } : {}),
    ...(options.receive ? { receive: options.receive } : {}),
    ...(options.handler ? { handler: options.handler } : {}),
  });
  let receiver: ReturnType<typeof createGatewayReceiver> | undefined;
  run.onClose(() => receiver?.stop());
  onTestFinished(async () => {
    await run.close();
    await fake.close();
  });
  return {
    fake,
    config,
    adapter,
    identity,
    registry,
    run,
    runtime: run.runtime,
    store: run.store,
    channel() {
      const channel = fake.createChannel({ type: "text" });
      return { channel, target: { kind: "group", id: channel.id, spaceId: fake.guildId } };
    },
    message: (target, markdown, extra = {}) => run.message(adapter.id, target, markdown, extra),
    async startReceiver() {
      receiver = createGatewayReceiver({
        config,
        token: FAKE_BOT.token,
        sink: run.sink(adapter.id),
        identity,
      });
      await receiver.start?.();
      return receiver;
    },
    intent: run.intent,
    settled: run.settled,
  };
}
