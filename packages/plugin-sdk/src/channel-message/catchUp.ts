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
import type { CursorTracker, ReceiveAckSignal, ReceiveOutcome } from "@herald/core";
import type { ChannelReceiver } from "./account.ts";
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
  /**
   * The account's first catch-up (epoch ms), written on the first call and kept: where a
   * conversation without a position is read from (nothing older than herald's first start).
   */
  firstStart(now: number): Promise<number>;
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
    async firstStart(now) {
      const cursor = sink.cursor(`${options.source}-since`);
      const stored = Number(await cursor.load());
      if (Number.isFinite(stored) && stored > 0) return stored;
      const batch = cursor.batch(String(now));
      await batch.item().complete();
      await batch.seal();
      await cursor.flushed();
      return now;
    },
    async flushed() {
      await Promise.all([...trackers.values()].map((e) => e.tracker.flushed()));
    },
  };
}

/** A live event's conversation and how it moves that conversation's position. */
export type CatchUpLiveMessage<T> = {
  conversation: string;
  next(current: T | undefined): T;
};

/** What a catch-up run gets from {@link createCatchUpReceiver}. */
export type CatchUpRunContext<T> = {
  positions: ConversationPositions<T>;
  /**
   * Hands one message found in history to the sink, as the live path would, and waits until it
   * is handled (a conversation's turns keep their order); its conversation's position moves to
   * `next(current)` once the message is recorded or done.
   */
  deliver(conversation: string, raw: unknown, next: (current: T | undefined) => T): Promise<void>;
  /**
   * `conversation` is caught up: the live messages held for it are handed over now, and its
   * position follows live messages from here on.
   */
  caughtUp(conversation: string): void;
  signal: AbortSignal;
};

/** Options of {@link createCatchUpReceiver}. */
export type CatchUpReceiverOptions<T, R> = {
  sink: ChannelReceiverSink;
  /** Builds the live receiver over the sink it should deliver into. */
  receiver(sink: ChannelReceiverSink): ChannelReceiver;
  /** Where the positions are kept (`source`) and how a stored one is read. */
  positions: ConversationPositionsOptions<T>;
  /** The conversation of a live event that is a message (else undefined: passed through). */
  live(raw: unknown): CatchUpLiveMessage<T> | undefined;
  /** Reads each conversation since its position, calling `deliver` and then `caughtUp`. */
  run(context: CatchUpRunContext<T>): Promise<R>;
};

/** A receiver with catch-up: `caughtUp()` resolves with the last run's report. */
export type CatchUpReceiver<R> = ChannelReceiver & {
  /** The running (or last) catch-up; `undefined` when it failed or was stopped. */
  caughtUp(): Promise<R | undefined>;
};

/**
 * Wraps a live receiver with inbound catch-up (DESIGN §5, CASES C54). On `start`, the live
 * receiver starts, then `run` reads what was missed, in the background (a paced read of many
 * conversations may take minutes). While a conversation is not caught up yet, its live messages
 * are answered at once but handed over only after the messages `run` finds in it — a
 * conversation's turns keep their order — and they do not move its position (older messages may
 * still be unread), so a stop before that re-reads them on the next start; once caught up, live
 * messages move it. Restarting the receiver catches up again. A failed run is logged; the held
 * live messages are then handed over and the positions stay where they were.
 */
export function createCatchUpReceiver<T, R>(
  options: CatchUpReceiverOptions<T, R>,
): CatchUpReceiver<R> {
  const { sink } = options;
  const positions = conversationPositions<T>(sink, options.positions);
  const ready = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  /** Live messages wait for their conversation only while a run is going on. */
  let active = false;
  /** Every conversation was caught up by the last run: all live messages move positions. */
  let allReady = false;
  const release = (conversation?: string) => {
    for (const key of conversation === undefined ? [...waiting.keys()] : [conversation]) {
      const list = waiting.get(key) ?? [];
      waiting.delete(key);
      for (const deliver of list) deliver();
    }
  };
  const handOver = (
    raw: unknown,
    source: Parameters<ChannelReceiverSink["receive"]>[1],
    live: CatchUpLiveMessage<T>,
  ) => {
    const ticket = sink.receive(raw, source);
    if (allReady || ready.has(live.conversation)) {
      void positions
        .advance(live.conversation, live.next, ticket.ack)
        .catch((error: unknown) =>
          sink.logger?.warn({ err: error }, "catch-up position not advanced"),
        );
    }
    return ticket;
  };
  const observed: ChannelReceiverSink = {
    ...sink,
    receive(raw, source) {
      // Only this account's own events move its positions (one webhook may serve several).
      const live = source?.accountId === undefined ? options.live(raw) : undefined;
      if (!live) return sink.receive(raw, source);
      if (!active || ready.has(live.conversation)) return handOver(raw, source, live);
      // Still being caught up: answered now, handed over after the older messages. Should the
      // process stop first, the next catch-up reads it again (the position has not passed it).
      let settle!: (outcome: ReceiveOutcome) => void;
      const done = new Promise<ReceiveOutcome>((resolve) => {
        settle = resolve;
      });
      const list = waiting.get(live.conversation) ?? [];
      list.push(() => void handOver(raw, source, live).done.then(settle));
      waiting.set(live.conversation, list);
      return { ack: Promise.resolve({ kind: "accept" } as const), done };
    },
  };
  const inner = options.receiver(observed);
  let controller: AbortController | undefined;
  let running: Promise<R | undefined> = Promise.resolve(undefined);
  const runOnce = async (signal: AbortSignal): Promise<R | undefined> => {
    active = true;
    allReady = false;
    ready.clear();
    try {
      const report = await options.run({
        positions,
        signal,
        async deliver(conversation, raw, next) {
          const ticket = sink.receive(raw);
          await positions.advance(conversation, next, ticket.ack);
          await ticket.done;
        },
        caughtUp(conversation) {
          ready.add(conversation);
          release(conversation);
        },
      });
      if (!signal.aborted) allReady = true;
      await positions.flushed();
      return signal.aborted ? undefined : report;
    } catch (error) {
      if (!signal.aborted)
        sink.logger?.warn({ err: error }, "catch-up failed: live events go on; the positions stay");
      return undefined;
    } finally {
      active = false;
      release();
    }
  };
  return {
    ...inner,
    ...(inner.webhook ? { webhook: inner.webhook.bind(inner) } : {}),
    ...(inner.health ? { health: inner.health.bind(inner) } : {}),
    caughtUp: () => running,
    async start(signal) {
      await inner.start?.(signal);
      controller = new AbortController();
      running = runOnce(controller.signal);
    },
    async stop() {
      controller?.abort();
      await running;
      await positions.flushed();
      await inner.stop?.();
    },
  };
}
