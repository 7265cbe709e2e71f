/**
 * Why a CLI reader (`queue ls|show|retry|cancel`, `recover`, `doctor`) has nothing to open: the
 * store is `:memory:` (private to the gateway process) or its SQLite file does not exist yet.
 * Readers never create a store.
 *
 * @module
 */
import { HeraldError } from "@herald/core";

/** The config's store is `":memory:"`: another process cannot see it. */
export class MemoryStoreNotInspectableError extends HeraldError {
  constructor() {
    super(
      "HERALD_STORE_IN_MEMORY",
      'the store is ":memory:": per-process memory of the running gateway, gone when it stops, so there is nothing to inspect from another process; fix: use a file ("store": { "sqlite": { "path": ".herald/state.db" } }) to inspect or recover its queue',
    );
  }
}

/** The config's SQLite file does not exist: no gateway has run with this config yet. */
export class NoStoreError extends HeraldError {
  readonly path: string;
  constructor(path: string) {
    super(
      "HERALD_STORE_MISSING",
      `no store exists at ${path} (nothing created): herald start creates it; fix: run this in the folder of the config the gateway uses, or pass -c <its config file>`,
    );
    this.path = path;
  }
}
