/**
 * The opaque cursor tracker (DESIGN §5): for sources whose position is a token rather than an
 * integer id — Matrix `/sync` `next_batch`, a backfill page token. The platform hands over
 * **batches** (the items of one response plus the token to fetch the next one); a batch's `next`
 * is persisted only when its items and every earlier batch's items are done, so a restart
 * resumes at the oldest batch with unfinished work and items fetched again are caught by dedupe
 * (CASES C31).
 *
 * @module
 */
import { describeError } from "../context/errorInfo.ts";
import { failpoint } from "../failpoint.ts";
import type { HeraldLogger } from "../logger.ts";
import { silentLogger } from "../logger.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { WatermarkKey } from "../state/types.ts";
import type { ReceiveAckSignal } from "./types.ts";

/** Options of {@link createCursorTracker}. */
export type CursorTrackerOptions = {
  store: MessageStateStore;
  /** Whose cursor: channel, account and source (e.g. `"sync"`). */
  key: WatermarkKey;
  /** @defaultValue `silentLogger` */
  logger?: HeraldLogger;
};

/** One item of a {@link CursorBatch} (one event handed to `receive`). */
export type CursorItem = {
  /** Marks the item done (its work completed or is durably recorded). */
  complete(): Promise<void>;
  /**
   * Completes the item once `ack` says `accept`. A `retry` leaves it unfinished: hand the event
   * over again (e.g. with the redelivery helper) and `track` the new ack on the same item.
   * @returns whether the item is done.
   */
  track(ack: Promise<ReceiveAckSignal>): Promise<boolean>;
};

/** One fetched batch: its items and the cursor that fetches the batch after it. */
export type CursorBatch = {
  /** The cursor to fetch the next batch with (persisted once this batch and all before it are done). */
  readonly next: string;
  /** Adds an item. Add every item of the response before calling {@link seal}. */
  item(): CursorItem;
  /** No more items: the batch may complete. @returns when its cursor is written (if it moved). */
  seal(): Promise<void>;
};

/** Tracks batches of one opaque cursor and persists the newest safe `next`. */
export type CursorTracker = {
  readonly key: WatermarkKey;
  /**
   * Reads the persisted cursor: fetch with it (`/sync?since=`). `undefined` = none yet, or a
   * stored value that is empty (logged as an error).
   */
  load(): Promise<string | undefined>;
  /** Opens the batch of one response, in fetch order. */
  batch(next: string): CursorBatch;
  /** The newest cursor whose batch and every earlier batch are done (may be ahead of the store). */
  safe(): string | undefined;
  /** Batches not yet done, oldest first (their `next` and unfinished item count). */
  pending(): { next: string; unfinished: number }[];
  /** Resolves when every cursor write started so far has settled. */
  flushed(): Promise<void>;
};

type BatchState = { next: string; open: number; sealed: boolean };

/**
 * Creates a tracker for one opaque cursor.
 *
 * @example
 * const cursor = sink.cursor("sync");
 * let since = await cursor.load();
 * for (;;) {
 *   const res = await sync({ since });
 *   const batch = cursor.batch(res.next_batch);
 *   for (const event of res.events) void batch.item().track(sink.receive(event).ack);
 *   void batch.seal();
 *   since = res.next_batch; // fetch on; a restart resumes from cursor.safe()
 * }
 */
export function createCursorTracker(options: CursorTrackerOptions): CursorTracker {
  const { store, key } = options;
  const log = (options.logger ?? silentLogger).child({ cursor: key });
  const queue: BatchState[] = [];
  let persisted: string | undefined;
  let safe: string | undefined;
  let writes: Promise<void> = Promise.resolve();

  /** Pops done batches off the front; writes the newest `next` popped. */
  const advance = (): Promise<void> => {
    let moved: string | undefined;
    while (queue.length > 0 && queue[0]?.sealed && queue[0].open === 0) {
      moved = (queue.shift() as BatchState).next;
    }
    if (moved === undefined) return writes;
    safe = moved;
    const value = moved;
    writes = writes
      .catch(() => {})
      .then(async () => {
        if (value !== safe) return; // a newer one is queued behind
        try {
          await store.setWatermark(key, value);
        } catch (error) {
          // The safe direction: the stored cursor stays behind, so a restart fetches these
          // events again and dedupe answers them. Nothing rejects into a caller that has moved on
          // (the store closing under a stopping receiver did, as an unhandled rejection).
          log.warn(
            { cursor: value.slice(0, 80), error: describeError(error) },
            "cursor not advanced: the store refused the write; a restart resumes from the last stored cursor and dedupe absorbs what it fetches again",
          );
          return;
        }
        persisted = value;
        log.debug({ cursor: value.slice(0, 80) }, "cursor advanced");
      });
    return writes.then(() => failpoint("receive.after_cursor"));
  };

  return {
    key,
    async load() {
      const value = await store.getWatermark(key);
      persisted = undefined;
      if (value !== undefined) {
        if (value.length === 0) {
          log.error({ stored: value }, "stored cursor is empty: ignoring it");
        } else {
          persisted = value;
        }
      }
      safe = persisted;
      return persisted;
    },
    batch(next) {
      if (typeof next !== "string" || next.length === 0)
        throw new TypeError(`a cursor batch needs a non-empty next cursor, got ${String(next)}`);
      const state: BatchState = { next, open: 0, sealed: false };
      queue.push(state);
      return {
        next,
        item() {
          if (state.sealed) throw new TypeError(`cursor batch ${next} is sealed: add items first`);
          state.open += 1;
          let done = false;
          const complete = (): Promise<void> => {
            if (!done) {
              done = true;
              state.open -= 1;
            }
            return advance();
          };
          return {
            complete,
            async track(ack) {
              const signal = await ack;
              if (signal.kind !== "accept") return false;
              await complete();
              return true;
            },
          };
        },
        seal() {
          state.sealed = true;
          return advance();
        },
      };
    },
    safe: () => safe,
    pending: () => queue.map((b) => ({ next: b.next, unfinished: b.open })),
    flushed: () => writes.catch(() => {}),
  };
}
