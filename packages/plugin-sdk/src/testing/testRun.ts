/**
 * One test's herald: a real runtime on a fresh SQLite store with a capturing logger, the
 * recorded inbound handler calls and outcomes, and the receiver sinks a plugin's receiver
 * delivers into — what every plugin's tests otherwise copy (DESIGN §8 "Testing kit"). Runner
 * free: register `run.close` with your runner (`onTestFinished(run.close)`).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import {
  type AdapterRegistration,
  type ChannelMessage,
  createMessageRuntime,
  type DeliveryOptions,
  type DurableSendIntent,
  type HeraldLogger,
  isHeldForOperator,
  type MessageReceiveContext,
  type MessageRuntime,
  type MessageRuntimeOptions,
  type MessageTarget,
  type ReceiveOutcome,
  type ReceiveRuntimeOptions,
  SqliteStateStore,
} from "@herald/core";
import type { ChannelReceiverSink } from "../channel-message/plugin.ts";
import { captureLogger } from "./captureLogger.ts";
import { eventually } from "./eventually.ts";
import { createReceiverSink } from "./sink.ts";

/** Fast delivery settings for tests: short polls and backoff, so retries are waited for quickly. */
export const TEST_RUN_DELIVERY = {
  pollIntervalMs: 10,
  leaseMs: 5_000,
  maxInMemoryWaitMs: 2_000,
  recoveryBudgetMs: 2_000,
  backoff: { baseMs: 40, maxMs: 300, maxAttempts: 8 },
} as const satisfies DeliveryOptions;

/** Options of {@link openTestRun}. */
export type TestRunOptions = {
  /** The adapters under test (a bare adapter, or `{ accountId, adapter }`). */
  adapters: readonly AdapterRegistration[];
  /** The bot's inbound handler; every call is recorded in `handled` first. */
  handler?: (ctx: MessageReceiveContext) => Promise<void> | void;
  /** Receive options. @defaultValue `{ loopGuard: false }` */
  receive?: Omit<ReceiveRuntimeOptions, "handler">;
  /** @defaultValue {@link TEST_RUN_DELIVERY} */
  delivery?: DeliveryOptions;
  /** @defaultValue `{ recoveryIntervalMs: 0 }` (no background live recovery) */
  live?: MessageRuntimeOptions["live"];
  /** Epoch-ms clock. @defaultValue Date.now */
  clock?: () => number;
  /** Jitter source. @defaultValue `() => 0.5` (deterministic backoff) */
  random?: () => number;
  /** SQLite file. @defaultValue ":memory:" */
  storePath?: string;
  /** Account of `message()` and of sinks without one. @defaultValue undefined */
  accountId?: string;
};

/** A running test herald. */
export type TestRun = {
  runtime: MessageRuntime;
  store: SqliteStateStore;
  logger: HeraldLogger;
  /** Every log line of the runtime and of the sinks' receivers (JSON, errors in full). */
  logLines: string[];
  /** Inbound messages the handler got, in dispatch order. */
  handled: MessageReceiveContext[];
  /** Settled outcomes of every inbound delivery handed over through a sink. */
  outcomes: ReceiveOutcome[];
  /** Inbound deliveries handed over through sinks so far (settled or not). */
  readonly deliveries: number;
  /** The sink a receiver of `channel` delivers into (the gateway's, built the same way). */
  sink(channel: string, accountId?: string): ChannelReceiverSink;
  /** An outbound markdown message to `target` on `channel`. */
  message(
    channel: string,
    target: MessageTarget,
    markdown: string,
    extra?: Partial<ChannelMessage>,
  ): ChannelMessage;
  /** The intent under an idempotency key. */
  intent(key: string): Promise<DurableSendIntent | undefined>;
  /**
   * Waits until the intent under `key` is sent, failed, cancelled or held for an operator.
   * @param timeoutMs - @defaultValue 8_000
   */
  settled(key: string, timeoutMs?: number): Promise<DurableSendIntent>;
  /** Runs `teardown` on `close()`, before the runtime stops (last registered runs first). */
  onClose(teardown: () => unknown): void;
  /** Runs the teardowns, stops the runtime and closes the store. Idempotent. */
  close(): Promise<void>;
};

/**
 * Starts a test herald: store, runtime (started), capture logger.
 *
 * @example
 * const run = await openTestRun({ adapters: [adapter] });
 * onTestFinished(run.close);
 * await run.runtime.send(run.message("qa", { kind: "direct", id: "c1" }, "hi"));
 */
export async function openTestRun(options: TestRunOptions): Promise<TestRun> {
  const store = new SqliteStateStore({ path: options.storePath ?? ":memory:" });
  const logLines: string[] = [];
  const logger = captureLogger(logLines);
  const handled: MessageReceiveContext[] = [];
  const outcomes: ReceiveOutcome[] = [];
  const teardowns: Array<() => unknown> = [];
  let deliveries = 0;
  let closing: Promise<void> | undefined;
  const runtime = createMessageRuntime({
    store,
    adapters: options.adapters,
    logger,
    random: options.random ?? (() => 0.5),
    ...(options.clock ? { clock: options.clock } : {}),
    delivery: options.delivery ?? {
      ...TEST_RUN_DELIVERY,
      backoff: { ...TEST_RUN_DELIVERY.backoff },
    },
    live: options.live ?? { recoveryIntervalMs: 0 },
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
  const account = options.accountId;
  return {
    runtime,
    store,
    logger,
    logLines,
    handled,
    outcomes,
    get deliveries() {
      return deliveries;
    },
    sink: (channel, accountId = account) =>
      createReceiverSink(runtime, {
        channel,
        ...(accountId !== undefined ? { accountId } : {}),
        logger,
        onTicket: (ticket) => {
          deliveries += 1;
          void ticket.done.then((outcome) => outcomes.push(outcome));
        },
      }),
    message: (channel, target, markdown, extra = {}) => ({
      id: randomUUID(),
      channel,
      ...(account !== undefined ? { accountId: account } : {}),
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
    onClose: (teardown) => void teardowns.push(teardown),
    close: () => {
      closing ??= (async () => {
        for (const teardown of teardowns.reverse()) await teardown();
        await runtime.stop(1_000);
        await store.close();
      })();
      return closing;
    },
  };
}
