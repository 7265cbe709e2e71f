/**
 * Per-conversation catch-up positions (DESIGN §5, CASES C54): for channels whose platform keeps
 * history but does not replay what a receiver missed (Slack's Events API retries a webhook a
 * few times, Socket Mode not at all; Google Chat's HTTP events are not redelivered), the
 * receiver reads each conversation's history since the last message it saw, at start. This
 * keeps that "last seen" position durably, one opaque cursor per conversation (the sink's
 * cursor tracker, source `<source>:<conversation>`): a position moves only once the message it
 * names, and every message tracked before it in that conversation, is recorded or done — so a
 * crash re-reads from the oldest unfinished message and core's dedupe drops what was done.
 *
 * Live events and catch-up reads both `advance` the position, so the next catch-up starts
 * where the receiver left off, whichever path saw the message.
 *
 * @module
 */
import type { CursorTracker, ReceiveAckSignal } from "@herald/core";
import type { ChannelReceiverSink } from "./plugin.ts";

/** Options of {@link conversationPositions}. */
export type ConversationPositionsOptions<T> = {
  /** Prefix of each conversation's cursor source, e.g. `"history"`. */
  source: string;
  /** Reads a stored position (JSON text); `undefined` for a value it cannot read (logged). */
  decode(text: string): T | undefined;
};

/** The durable catch-up positions of one account's conversations. */
export type ConversationPositions<T> = {
  /** The position of `conversation`: the newest one advanced to (in memory), else the stored one. */
  get(conversation: string): Promise<T | undefined>;
  /**
   * Moves `conversation` to `next(current)` once `ack` accepts (the message is recorded or
   * done) and every earlier advance of that conversation is done.
   * @returns whether the ack accepted.
   */
  advance(
    conversation: string,
    next: (current: T | undefined) => T,
    ack: Promise<ReceiveAckSignal>,
  ): Promise<boolean>;
  /** Resolves once every position write started so far has settled. */
  flushed(): Promise<void>;
};

/**
 * Builds the catch-up positions of the account behind `sink`.
 *
 * @example
 * const positions = conversationPositions(sink, { source: "history", decode: JSON.parse });
 * const since = (await positions.get("C1"))?.ts;
 * await positions.advance("C1", (p) => ({ ts: newer(p?.ts, m.ts) }), sink.receive(raw).ack);
 */
export function conversationPositions<T>(
  sink: ChannelReceiverSink,
  options: ConversationPositionsOptions<T>,
): ConversationPositions<T> {
  const trackers = new Map<string, { tracker: CursorTracker; loaded: Promise<void> }>();
  const current = new Map<string, T | undefined>();
  const open = (conversation: string) => {
    let entry = trackers.get(conversation);
    if (!entry) {
      const tracker = sink.cursor(`${options.source}:${conversation}`);
      const loaded = tracker.load().then((text) => {
        if (current.has(conversation) || text === undefined) return;
        const value = options.decode(text);
        if (value === undefined) {
          sink.logger?.error(
            { conversation, stored: text.slice(0, 200) },
            "catch-up position unreadable: ignoring it",
          );
        }
        current.set(conversation, value);
      });
      entry = { tracker, loaded };
      trackers.set(conversation, entry);
    }
    return entry;
  };
  return {
    async get(conversation) {
      await open(conversation).loaded;
      return current.get(conversation);
    },
    async advance(conversation, next, ack) {
      const { tracker, loaded } = open(conversation);
      await loaded;
      const value = next(current.get(conversation));
      current.set(conversation, value);
      const batch = tracker.batch(JSON.stringify(value));
      const done = batch.item().track(ack);
      void batch.seal();
      return done;
    },
    async flushed() {
      await Promise.all([...trackers.values()].map((e) => e.tracker.flushed()));
    },
  };
}
