/**
 * Bounded local redelivery for push-only sockets (Discord gateway, Slack Socket Mode after the
 * envelope ack): the platform will not send an event again, so when herald answers `retry`
 * (busy elsewhere, store unavailable, a failed handler) the receiver hands it over again
 * itself, with backoff, a bounded number of times, with a bounded number of events waiting.
 * Giving up is logged as an error with the event's source, never silent.
 *
 * @module
 */
import type { HeraldLogger, ReceiveAckSignal, ReceiverSink, ReceiveSource } from "@herald/core";

/** Options of {@link createRedelivery}. */
export type RedeliveryOptions = {
  sink: Pick<ReceiverSink, "receive">;
  logger: HeraldLogger;
  /** Deliveries of one event in all (the first one included). @defaultValue 5 */
  maxAttempts?: number;
  /** First wait before a redelivery, in ms; doubled each time unless `retryAfterMs` says. @defaultValue 1_000 */
  baseDelayMs?: number;
  /** Longest wait, in ms. @defaultValue 30_000 */
  maxDelayMs?: number;
  /** Most events waiting for a redelivery at once; beyond it a new `retry` gives up at once. @defaultValue 1_000 */
  maxWaiting?: number;
};

/** The helper: `deliver` instead of `sink.receive`. */
export type Redelivery = {
  /**
   * Hands `raw` to herald, and again after each `retry` ack, until it is accepted or the
   * attempts are spent. `onAck` sees every attempt's ack (track it on a cursor item).
   * @returns the last ack: `accept`, or the `retry` it gave up on.
   */
  deliver(
    raw: unknown,
    source?: Partial<Omit<ReceiveSource, "channel">>,
    onAck?: (ack: Promise<ReceiveAckSignal>) => void,
  ): Promise<ReceiveAckSignal>;
  /** Events waiting for a redelivery now. */
  waiting(): number;
  /** Cancels every pending wait (the events are given up, logged). */
  close(): void;
};

/** Creates a redelivery helper for one receiver. */
export function createRedelivery(options: RedeliveryOptions): Redelivery {
  const maxAttempts = options.maxAttempts ?? 5;
  const base = options.baseDelayMs ?? 1_000;
  const max = options.maxDelayMs ?? 30_000;
  const maxWaiting = options.maxWaiting ?? 1_000;
  const timers = new Set<{ timer: ReturnType<typeof setTimeout>; wake: () => void }>();
  let closed = false;

  const wait = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          timers.delete(entry);
          resolve(true);
        }, ms),
        wake: () => resolve(false),
      };
      timers.add(entry);
    });

  return {
    async deliver(raw, source, onAck) {
      for (let attempt = 1; ; attempt++) {
        const ticket = options.sink.receive(raw, source);
        onAck?.(ticket.ack);
        const ack = await ticket.ack;
        if (ack.kind !== "retry") return ack;
        const why = { attempt, maxAttempts, reason: ack.reason, accountId: source?.accountId };
        if (attempt >= maxAttempts || closed || timers.size >= maxWaiting) {
          options.logger.error(
            { ...why, waiting: timers.size },
            "redelivery gave up: event not processed (the platform will not send it again)",
          );
          return ack;
        }
        const delay = Math.min(max, ack.retryAfterMs ?? base * 2 ** (attempt - 1));
        options.logger.warn({ ...why, delayMs: delay }, "herald answered retry: redelivering");
        if (!(await wait(delay))) {
          options.logger.error(why, "redelivery cancelled: receiver closed");
          return ack;
        }
      }
    },
    waiting: () => timers.size,
    close() {
      closed = true;
      for (const t of timers) {
        clearTimeout(t.timer);
        t.wake();
      }
      timers.clear();
    },
  };
}
