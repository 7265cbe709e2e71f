/**
 * The polling watermark tracker (DESIGN §5; seed, "Receive context": polling offset ack). A
 * polling receiver (Telegram `getUpdates`) reports every update it hands to `receive`; the
 * persisted watermark only moves up to the **safe id = lowest unfinished − 1**, so a restart
 * resumes at the first update whose work neither completed nor was durably recorded, and later
 * updates fetched again are caught by dedupe.
 *
 * Ids are integers compared as `bigint` (a Discord snowflake is not a safe integer). Nothing the
 * platform hands over is dropped: an id at or below the fetch floor ({@link
 * WatermarkTracker.resumeAfter}) means the platform's id sequence restarted (Telegram picks a
 * random lower `update_id` after a week without updates), and the watermark follows it down —
 * logged and counted, never silent. The update itself is still processed; dedupe stops replays.
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

/** An integer update id: a number (safe integer), a bigint, or a decimal string. */
export type WatermarkId = number | bigint | string;

/** What {@link WatermarkTrackerOptions.onRestart} is told. */
export type WatermarkRestart = {
  key: WatermarkKey;
  /** The floor the fetch asked for (ids above it were expected). */
  floor: bigint;
  /** The id the platform handed over at or below it. */
  id: bigint;
};

/** Options of {@link createWatermarkTracker}. */
export type WatermarkTrackerOptions = {
  store: MessageStateStore;
  /** Whose cursor: channel, account and (for several cursors of one account) source. */
  key: WatermarkKey;
  /** @defaultValue `silentLogger` */
  logger?: HeraldLogger;
  /** Called when the platform's id sequence restarted below the floor (for a metric). */
  onRestart?: (restart: WatermarkRestart) => void;
};

/** Tracks unfinished polled updates and persists the safe watermark. */
export type WatermarkTracker = {
  readonly key: WatermarkKey;
  /**
   * Reads the persisted watermark: the highest id whose work, and that of every id below it,
   * completed. Fetch from `watermark + 1` (Telegram `offset`). `undefined` = nothing yet, or a
   * stored value that is not a decimal integer (logged as an error with the value).
   */
  load(): Promise<bigint | undefined>;
  /**
   * The id to fetch after (the safe id now), recorded as the floor of the next fetch: the
   * platform only hands over ids above it, so an id at or below it is a restart of its id
   * sequence, which {@link begin} follows. Call it for every fetch (Telegram: `offset` =
   * `resumeAfter() + 1`; a resumable stream: `since` = `resumeAfter()`).
   */
  resumeAfter(): bigint | undefined;
  /**
   * Reports that an update entered processing. Call it for **every update of a fetched batch
   * before** completing any of them: an id not yet begun cannot hold the watermark back. An id
   * at or below the fetch floor restarts the sequence: the watermark becomes `id − 1`
   * (persisted now), unfinished ids of the old sequence no longer hold it, and a warning is
   * logged. Hand the update to `receive` either way.
   * @throws TypeError when `id` is not an integer.
   */
  begin(id: WatermarkId): void;
  /**
   * Reports that an update's work completed or is durably recorded (its ack was `accept`).
   * Persists the new safe id if it moved. @returns when that write is done.
   * @throws StoreUnavailableError when the watermark cannot be written (the next
   * `complete` writes it again).
   */
  complete(id: WatermarkId): Promise<void>;
  /** `begin(id)`, then `complete(id)` once `ack` says `accept`; `retry` leaves it unfinished. */
  track(id: WatermarkId, ack: Promise<ReceiveAckSignal>): Promise<void>;
  /** The safe id now (may be ahead of the persisted one while a write is under way). */
  safeId(): bigint | undefined;
  /** Unfinished ids, ascending. */
  pending(): bigint[];
};

/**
 * Parses an integer id.
 * @throws TypeError naming the value when it is not an integer.
 */
export function parseWatermarkId(id: WatermarkId): bigint {
  if (typeof id === "bigint") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return BigInt(id);
  if (typeof id === "string" && /^-?\d+$/.test(id)) return BigInt(id);
  throw new TypeError(`watermark ids are integers, got ${typeof id} ${String(id)}`);
}

/**
 * Creates a tracker for one polling cursor.
 *
 * @example
 * const tracker = createWatermarkTracker({ store, key: { channel: "telegram", accountId } });
 * await tracker.load();
 * const after = tracker.resumeAfter();
 * const updates = await getUpdates({ offset: after === undefined ? undefined : Number(after) + 1 });
 * for (const u of updates) tracker.begin(u.update_id);
 * for (const u of updates) void tracker.track(u.update_id, runtime.receive(u, source).ack);
 */
export function createWatermarkTracker(options: WatermarkTrackerOptions): WatermarkTracker {
  const { store, key } = options;
  const log = (options.logger ?? silentLogger).child({ watermark: key });
  const unfinished = new Set<bigint>();
  /** Unfinished ids of a sequence that restarted: their completion moves nothing. */
  const retired = new Set<bigint>();
  let persisted: bigint | undefined;
  let target: bigint | undefined;
  let highestDone: bigint | undefined;
  let floor: bigint | undefined;
  /** Bumped on a restart of the id sequence: writes of an older epoch are void. */
  let epoch = 0;
  let writes: Promise<void> = Promise.resolve();

  const safe = (): bigint | undefined => {
    if (highestDone === undefined) return persisted;
    let s = highestDone;
    for (const id of unfinished) if (id - 1n < s) s = id - 1n;
    return persisted === undefined || s > persisted ? s : persisted;
  };

  const write = (value: bigint, force: boolean): Promise<void> => {
    const at = epoch;
    writes = writes
      .catch(() => {})
      .then(async () => {
        if (at !== epoch) return;
        if (!force && persisted !== undefined && value <= persisted) return;
        try {
          await store.setWatermark(key, value.toString());
        } catch (error) {
          target = persisted; // let the next complete() write it again
          throw error;
        }
        persisted = value;
        log.debug({ watermark: value.toString() }, "watermark advanced");
      });
    return writes;
  };

  const restart = (id: bigint, below: bigint): void => {
    log.warn(
      {
        updateId: id.toString(),
        floor: below.toString(),
        abandoned: [...unfinished].map(String),
      },
      "platform id sequence restarted below the watermark: following it (update processed under dedupe)",
    );
    options.onRestart?.({ key, floor: below, id });
    epoch += 1;
    for (const old of unfinished) retired.add(old);
    unfinished.clear();
    highestDone = undefined;
    floor = id - 1n;
    persisted = id - 1n;
    target = id - 1n;
    write(id - 1n, true).catch((error: unknown) => {
      log.warn({ err: error }, "watermark not written after a sequence restart");
    });
  };

  const tracker: WatermarkTracker = {
    key,
    async load() {
      const value = await store.getWatermark(key);
      persisted = undefined;
      if (value !== undefined) {
        try {
          persisted = parseWatermarkId(value.trim());
        } catch {
          log.error(
            { stored: value.slice(0, 200) },
            "stored watermark is not an integer: ignoring it and fetching from the platform's default",
          );
        }
      }
      target = persisted;
      floor = persisted;
      return persisted;
    },
    resumeAfter() {
      floor = safe();
      return floor;
    },
    begin(raw) {
      const id = parseWatermarkId(raw);
      if (floor !== undefined && id <= floor) {
        restart(id, floor);
      }
      if (persisted !== undefined && id <= persisted) return;
      unfinished.add(id);
    },
    complete(raw) {
      const id = parseWatermarkId(raw);
      if (retired.delete(id)) return writes.then(() => {}); // of a sequence that restarted
      unfinished.delete(id);
      if (persisted === undefined || id > persisted)
        highestDone = highestDone === undefined || id > highestDone ? id : highestDone;
      const next = safe();
      if (next !== undefined && (target === undefined || next > target)) {
        target = next;
        write(next, false).catch(() => {});
      }
      const written = writes;
      return written.then(() => failpoint("receive.after_watermark"));
    },
    track(id, ack) {
      tracker.begin(id);
      const at = epoch;
      return ack.then((signal) =>
        signal.kind === "accept" && at === epoch ? tracker.complete(id) : undefined,
      );
    },
    safeId: safe,
    pending: () => [...unfinished].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  };
  return tracker;
}
