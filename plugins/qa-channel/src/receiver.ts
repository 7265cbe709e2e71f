/**
 * The QA channel's receiver: consumes the bot event stream (`GET /api/v1/events`, server-sent
 * events) and hands each event to herald. The stream is resumable by sequence number, so it is
 * tracked like a polling offset: the persisted watermark only passes events whose work completed
 * (or is durably recorded), and a restarted receiver resumes after it — events fetched again
 * are answered as duplicates by herald's dedupe.
 *
 * @module
 */
import {
  type ChannelReceiver,
  type ChannelReceiverSink,
  receiverHealth,
  sleep,
  type WatermarkTracker,
} from "@herald/plugin-sdk/channel-message";
import type { QaClient } from "./client.ts";

/** Options of {@link createQaReceiver}. */
export type QaReceiverOptions = {
  /** Wait before reconnecting a dropped stream, in ms. */
  reconnectDelayMs: number;
};

/**
 * Creates the receiver. `start()` resolves once the stream is connected (or the first attempt
 * failed; it keeps reconnecting in the background); `stop()` closes it and waits for the loop.
 */
export function createQaReceiver(
  client: QaClient,
  sink: ChannelReceiverSink,
  options: QaReceiverOptions,
): ChannelReceiver {
  let controller: AbortController | undefined;
  let loop: Promise<void> | undefined;
  const health = receiverHealth();

  async function run(
    tracker: WatermarkTracker,
    first: number,
    signal: AbortSignal,
    connected: () => void,
  ): Promise<void> {
    let cursor = first;
    while (!signal.aborted) {
      try {
        const events = client.events(cursor, signal, () => {
          health.set("up");
          connected();
        });
        for await (const event of events) {
          cursor = Math.max(cursor, event.seq);
          const ticket = sink.receive(event);
          tracker.track(event.seq, ticket.ack).catch((error: unknown) => {
            sink.logger.warn({ err: error, seq: event.seq }, "qa: watermark not written");
          });
        }
      } catch (error) {
        connected();
        if (signal.aborted) break;
        health.set("connecting", `event stream failed: ${(error as Error).message}`);
        sink.logger.warn({ err: error }, "qa: event stream failed; reconnecting");
      }
      if (!(await sleep(options.reconnectDelayMs, signal))) break;
    }
  }

  return {
    health: health.get,
    async start() {
      if (loop) return;
      health.set("connecting", "connecting to the event stream");
      controller = new AbortController();
      const tracker = sink.watermark("events");
      await tracker.load();
      const since = Number(tracker.resumeAfter() ?? 0n);
      await new Promise<void>((resolve) => {
        loop = run(tracker, since, (controller as AbortController).signal, resolve);
      });
    },
    async stop() {
      controller?.abort();
      await loop;
      loop = undefined;
      health.set("down", "stopped");
    },
  };
}
