/**
 * A {@link ChannelReceiverSink} over a message runtime, for plugin tests: what the gateway hands
 * a plugin's `createReceiver`, built the same way (receive through the runtime, watermarks in its
 * store).
 *
 * @module
 */
import { createWatermarkTracker, type HeraldLogger, type MessageRuntime } from "@herald/core";
import type { ChannelReceiverSink } from "../channel-message/plugin.ts";

/**
 * Builds the sink a receiver of `channel` / `accountId` delivers into.
 *
 * @param options.onTicket - sees every `receive` ticket (tests await `done` to observe outcomes
 *   such as `dropped` / `duplicate`).
 */
export function createReceiverSink(
  runtime: MessageRuntime,
  options: {
    channel: string;
    accountId?: string;
    logger?: HeraldLogger;
    onTicket?: (ticket: ReturnType<MessageRuntime["receive"]>) => void;
  },
): ChannelReceiverSink {
  const account = options.accountId === undefined ? {} : { accountId: options.accountId };
  const logger = options.logger ?? silent;
  return {
    receive(raw, source = {}) {
      const ticket = runtime.receive(raw, { ...account, ...source, channel: options.channel });
      options.onTicket?.(ticket);
      return ticket;
    },
    watermark(source) {
      return createWatermarkTracker({
        store: runtime.store,
        key: { channel: options.channel, ...account, ...(source ? { source } : {}) },
        logger,
      });
    },
    logger,
  };
}

const silent: HeraldLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silent,
};
