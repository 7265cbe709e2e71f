/**
 * A store whose writes fail like SQLite's on a full disk (`SQLITE_FULL`) while `full` is set,
 * reads untouched — what an operator meets when the disk fills ([H28] C50). Wraps any
 * {@link MessageStateStore}; every other call goes to it.
 *
 * @module
 */
import { StoreUnavailableError } from "../state/errors.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";

/** The store methods that write (they fail while the disk is full). */
const WRITES = new Set<string>([
  "enqueueIntents",
  "transitionIntents",
  "updateIntent",
  "leaseDueIntents",
  "releaseLease",
  "acquireDedupe",
  "renewDedupe",
  "completeDedupe",
  "releaseDedupe",
  "appendLedger",
  "putDeadLetter",
  "markDeadLetter",
  "setWatermark",
]);

/** A switchable full disk in front of a store. */
export type FullDisk = {
  /** The wrapped store: use it wherever the code under test takes a store. */
  store: MessageStateStore;
  /** While true, every write rejects with a `StoreUnavailableError` (`SQLITE_FULL`). */
  full: boolean;
};

/**
 * Wraps `inner` so its writes can fail on demand.
 *
 * @example
 * const disk = fullDisk(new SqliteStateStore({ path: ":memory:" }));
 * disk.full = true; // writes now fail; reads work
 */
export function fullDisk(inner: MessageStateStore): FullDisk {
  const disk = { full: false } as FullDisk;
  disk.store = new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (disk.full && WRITES.has(String(prop)))
        return () =>
          Promise.reject(
            new StoreUnavailableError(
              String(prop),
              new Error("SQLITE_FULL: database or disk is full"),
            ),
          );
      return value.bind(target);
    },
  });
  return disk;
}
