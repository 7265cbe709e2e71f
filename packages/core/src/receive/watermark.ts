/**
 * The polling watermark tracker (DESIGN §5; seed, "Receive context": polling offset ack). A
 * polling receiver (Telegram `getUpdates`) reports every update it hands to `receive`; the
 * persisted watermark only moves up to the **safe id = lowest unfinished − 1**, so a restart
 * resumes at the first update whose work neither completed nor was durably recorded, and later
 * updates fetched again are caught by dedupe.
 *
 * Polling has one consumer per account, so the tracker's in-memory set of unfinished ids is
 * exact; the persisted value is what survives a crash.
 *
 * @module
 */
import { failpoint } from "../failpoint.ts";
import type { HeraldLogger } from "../logger.ts";
import { silentLogger } from "../logger.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { WatermarkKey } from "../state/types.ts";
import type { ReceiveAckSignal } from "./types.ts";

/** Options of {@link createWatermarkTracker}. */
export type WatermarkTrackerOptions = {
  store: MessageStateStore;
  /** Whose cursor: channel, account and (for several cursors of one account) source. */
  key: WatermarkKey;
  /** @defaultValue `silentLogger` */
  logger?: HeraldLogger;
};

/** Tracks unfinished polled updates and persists the safe watermark. Ids are integers. */
export type WatermarkTracker = {
  readonly key: WatermarkKey;
  /**
   * Reads the persisted watermark: the highest id whose work, and that of every id below it,
   * completed. Fetch from `watermark + 1` (Telegram `offset`). `undefined` = nothing yet.
   */
  load(): Promise<number | undefined>;
  /**
   * Reports that an update entered processing. Call it for **every update of a fetched batch
   * before** completing any of them: an id not yet begun cannot hold the watermark back. Ids
   * at or below the persisted watermark are redeliveries and do not move it.
   */
  begin(id: number): void;
  /**
   * Reports that an update's work completed or is durably recorded (its ack was `accept`).
   * Persists the new safe id if it moved. @returns when that write is done.
   * @throws StoreUnavailableError when the watermark cannot be written (the next
   * `complete` writes it again).
   */
  complete(id: number): Promise<void>;
  /** `begin(id)`, then `complete(id)` once `ack` says `accept`; `retry` leaves it unfinished. */
  track(id: number, ack: Promise<ReceiveAckSignal>): Promise<void>;
  /** The safe id now (may be ahead of the persisted one while a write is under way). */
  safeId(): number | undefined;
  /** Unfinished ids, ascending. */
  pending(): number[];
};

/**
 * Creates a tracker for one polling cursor.
 *
 * @example
 * const tracker = createWatermarkTracker({ store, key: { channel: "telegram", accountId } });
 * const offset = ((await tracker.load()) ?? 0) + 1;
 * const updates = await getUpdates({ offset });
 * for (const u of updates) tracker.begin(u.update_id);
 * for (const u of updates) void tracker.track(u.update_id, runtime.receive(u, source).ack);
 */
export function createWatermarkTracker(options: WatermarkTrackerOptions): WatermarkTracker {
  const { store, key } = options;
  const log = (options.logger ?? silentLogger).child({ watermark: key });
  const unfinished = new Set<number>();
  let persisted: number | undefined;
  let target: number | undefined;
  let highestDone: number | undefined;
  let writes: Promise<void> = Promise.resolve();

  const safe = (): number | undefined => {
    if (highestDone === undefined) return persisted;
    let s = highestDone;
    for (const id of unfinished) s = Math.min(s, id - 1);
    return persisted === undefined ? s : Math.max(s, persisted);
  };

  const tracker: WatermarkTracker = {
    key,
    async load() {
      const value = await store.getWatermark(key);
      const n = value === undefined ? undefined : Number(value);
      persisted = n !== undefined && Number.isSafeInteger(n) ? n : undefined;
      target = persisted;
      return persisted;
    },
    begin(id) {
      assertId(id);
      if (persisted !== undefined && id <= persisted) return;
      unfinished.add(id);
    },
    complete(id) {
      assertId(id);
      unfinished.delete(id);
      if (persisted === undefined || id > persisted)
        highestDone = highestDone === undefined ? id : Math.max(highestDone, id);
      const next = safe();
      if (next !== undefined && (target === undefined || next > target)) {
        target = next;
        const value = next;
        writes = writes
          .catch(() => {})
          .then(async () => {
            if (persisted !== undefined && value <= persisted) return;
            try {
              await store.setWatermark(key, String(value));
            } catch (error) {
              target = persisted; // let the next complete() write it again
              throw error;
            }
            persisted = value;
            log.debug({ watermark: value }, "watermark advanced");
          });
      }
      const written = writes;
      return written.then(() => failpoint("receive.after_watermark"));
    },
    track(id, ack) {
      tracker.begin(id);
      return ack.then((signal) => (signal.kind === "accept" ? tracker.complete(id) : undefined));
    },
    safeId: safe,
    pending: () => [...unfinished].sort((a, b) => a - b),
  };
  return tracker;
}

function assertId(id: number): void {
  if (!Number.isSafeInteger(id)) throw new TypeError(`watermark ids are integers, got ${id}`);
}
