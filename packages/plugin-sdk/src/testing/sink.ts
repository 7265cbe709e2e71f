/**
 * A {@link ChannelReceiverSink} over a message runtime, for plugin tests: what the gateway hands
 * a plugin's receiver, built the same way (`createReceiverSinkFor` of `@herald/core`: receive
 * through the runtime, watermarks and cursors in its store).
 *
 * @module
 */
import { createReceiverSinkFor, type HeraldLogger, type MessageRuntime } from "@herald/core";
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
  return createReceiverSinkFor({
    receive: (raw, source) => runtime.receive(raw, source),
    store: runtime.store,
    channel: options.channel,
    ...(options.accountId === undefined ? {} : { accountId: options.accountId }),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.onTicket ? { onTicket: options.onTicket } : {}),
  });
}
