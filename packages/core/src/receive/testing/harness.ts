/**
 * A receive test bench: an in-memory SQLite store, a manual clock, the given fake adapters and
 * a handler that records what it processed.
 *
 * @module
 */
import type { MessageEventClass } from "../../adapter/receive.ts";
import type { MessageStateStore } from "../../state/MessageStateStore.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { createReceiveRuntime } from "../ReceiveRuntime.ts";
import type {
  MessageReceiveContext,
  ReceiveChannelAdapter,
  ReceiveRuntime,
  ReceiveRuntimeOptions,
} from "../types.ts";
import { type ManualClock, manualClock } from "./clock.ts";

/** One message the bench's handler processed successfully. */
export type Processed = { id: string; text: string; event: MessageEventClass; attempt: number };

/** What {@link receiveBench} returns. */
export type ReceiveBench = {
  store: MessageStateStore;
  clock: ManualClock;
  runtime: ReceiveRuntime;
  /** Successful handler runs, in completion order. */
  processed: Processed[];
  /** Ids of successfully processed messages (dedupe identity strings). */
  processedIds(): string[];
};

/**
 * Builds a bench. Without `options.handler` the handler records each message into `processed`;
 * with one, `processed` is filled after it returns.
 */
export function receiveBench(
  adapters: readonly ReceiveChannelAdapter[],
  options: ReceiveRuntimeOptions & { store?: MessageStateStore; clock?: ManualClock } = {},
): ReceiveBench {
  const { store: given, clock: givenClock, handler, ...runtimeOptions } = options;
  const clock = givenClock ?? manualClock();
  const store = given ?? new SqliteStateStore({ path: ":memory:", clock: clock.now });
  const processed: Processed[] = [];
  const record = (ctx: MessageReceiveContext) =>
    processed.push({
      id: ctx.id,
      text: ctx.input.body?.markdown ?? "",
      event: ctx.event,
      attempt: ctx.attempt,
    });
  const runtime = createReceiveRuntime(
    { store, adapters: new Map(adapters.map((a) => [a.id, a])), clock: clock.now },
    {
      ...runtimeOptions,
      handler: async (ctx) => {
        if (handler) await handler(ctx);
        record(ctx);
      },
    },
  );
  return { store, clock, runtime, processed, processedIds: () => processed.map((p) => p.id) };
}
