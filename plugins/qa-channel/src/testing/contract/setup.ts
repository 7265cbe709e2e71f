/**
 * One contract test's world: a fresh fake platform from the harness, the adapter under test, a
 * real herald runtime on an in-memory SQLite store, and (for inbound tests) the channel's real
 * receiver. Torn down when the test finishes.
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
  type VisibleMessage,
} from "@herald/plugin-sdk/testing";
import { onTestFinished } from "vitest";
import type {
  ContractHarness,
  ContractPlatform,
  ContractPlatformOptions,
  JsonValue,
} from "./types.ts";

/** The text limit the suite asks platforms for (small, so multi-part tests stay cheap). */
export const CONTRACT_MAX_LENGTH = 120;

/** Fast delivery settings: tests wait for retries, so backoff is short (the SDK's test-run defaults). */
export const CONTRACT_DELIVERY = TEST_RUN_DELIVERY;

/** A running contract test. */
export type ContractRun = {
  harness: ContractHarness;
  platform: ContractPlatform;
  adapter: ChannelMessageAdapter;
  runtime: MessageRuntime;
  store: SqliteStateStore;
  /** Inbound messages the handler got, in dispatch order. */
  handled: MessageReceiveContext[];
  /** Settled outcomes of every inbound delivery the receiver handed over. */
  outcomes: ReceiveOutcome[];
  /** Inbound deliveries the receiver handed over so far (settled or not). */
  readonly deliveries: number;
  /** Every log line of the runtime and the receiver (JSON, errors in full). */
  logLines: string[];
  /** An outbound text message to `target`. */
  message(target: MessageTarget, text: string, extra?: Partial<ChannelMessage>): ChannelMessage;
  /** Visible messages of a target. */
  visible(target: MessageTarget): Promise<VisibleMessage[]>;
  /** Reads an intent by idempotency key. */
  intent(key: string): Promise<DurableSendIntent | undefined>;
  /** Waits until the intent under `key` settles (see {@link settled}). */
  settled(key: string, timeoutMs?: number): Promise<DurableSendIntent>;
  /** Starts the channel's receiver (throws when the harness has none). */
  startReceiver(): Promise<void>;
};

/** Options of {@link openRun}. */
export type RunOptions = {
  /** Delivery options. @defaultValue {@link CONTRACT_DELIVERY} */
  delivery?: DeliveryOptions;
  receive?: Omit<ReceiveRuntimeOptions, "handler">;
  /** The bot's handler; the default records the message and returns. */
  handler?: (ctx: MessageReceiveContext) => Promise<void> | void;
  /** Platform hints beyond the text limit (`receive: "webhook"`, timeouts, real limits). */
  platform?: Omit<ContractPlatformOptions, "maxLength">;
};

/** Starts a platform, an adapter and a runtime for the current test; closed when it finishes. */
export async function openRun(
  harness: ContractHarness,
  options: RunOptions = {},
): Promise<ContractRun> {
  const platform = await harness.platform({ ...options.platform, maxLength: CONTRACT_MAX_LENGTH });
  const adapter = harness.createAdapter(platform.connection as JsonValue);
  const accountId = harness.accountId ?? "contract";
  const run = await openTestRun({
    adapters: [adapter],
    accountId,
    ...(options.delivery ? { delivery: options.delivery } : {}),
    ...(options.receive ? { receive: options.receive } : {}),
    ...(options.handler ? { handler: options.handler } : {}),
  });
  let receiver: ChannelReceiver | undefined;
  run.onClose(() => receiver?.stop?.());
  onTestFinished(async () => {
    await run.close();
    await platform.close();
  });
  const { runtime, store, handled, outcomes } = run;

  return {
    harness,
    platform,
    adapter,
    runtime,
    store,
    handled,
    outcomes,
    get deliveries() {
      return run.deliveries;
    },
    logLines: run.logLines,
    message: (target, text, extra = {}) => run.message(adapter.id, target, text, extra),
    visible: async (target) => platform.visible(target),
    intent: run.intent,
    settled: run.settled,
    async startReceiver() {
      if (!harness.createReceiver)
        throw new Error(`${harness.name}: the harness has no createReceiver`);
      receiver = harness.createReceiver(platform.connection as JsonValue, run.sink(adapter.id));
      if (receiver.webhook && platform.inbound?.connectWebhook) {
        const webhook = receiver.webhook.bind(receiver);
        platform.inbound.connectWebhook((request) => webhook(request));
      }
      await receiver.start?.();
    },
  };
}

/** Waits until the intent under `key` settles: sent, failed, cancelled or held for an operator. */
export async function settled(
  run: ContractRun,
  key: string,
  timeoutMs = 8_000 + settleDelayOf(run.adapter),
): Promise<DurableSendIntent> {
  return run.settled(key, timeoutMs);
}

/**
 * How long core waits before it reconciles an unknown send with this adapter, in ms (its
 * declared request timeout plus the lookup's visibility lag; DESIGN §3 "Replay gate"): tests
 * that wait for a reconciled intent wait that much longer.
 */
export function settleDelayOf(adapter: ChannelMessageAdapter): number {
  const delivery = adapter.capabilities.delivery ?? {};
  if (!adapter.send.reconcileUnknownSend) return 0;
  return (delivery.requestTimeoutMs ?? 30_000) + (delivery.reconcile?.visibilityLagMs ?? 0);
}

/** Space-separated words `<prefix>0 <prefix>1 …`, at least `length` UTF-16 units long. */
export function wordsOfLength(length: number, prefix: string): string {
  const words: string[] = [];
  let total = -1;
  for (let i = 0; total < length; i++) {
    const word = `${prefix}${i}`;
    words.push(word);
    total += word.length + 1;
  }
  return words.join(" ");
}

/** Collapses whitespace, so chunk seams (a trailing space moved or dropped) compare equal. */
export function normalizeSpace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The text limit the adapter declares, in UTF-16 units (the suite's hint when it declares none). */
export function maxLengthOf(adapter: ChannelMessageAdapter): number {
  return adapter.capabilities.text.maxLength ?? CONTRACT_MAX_LENGTH;
}
