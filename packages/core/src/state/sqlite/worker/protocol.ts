/**
 * Messages between {@link SqliteWorkerStore} (main thread) and its worker (`sqliteWorker.ts`).
 *
 * @module
 */
import type { MessageStateStore } from "../../MessageStateStore.ts";
import type { SqliteStateStoreOptions } from "../SqliteStateStore.ts";
import type { EncodedError } from "./errorCodec.ts";

/** The store methods proxied one-to-one (all async, plain-data arguments and results). */
export type StoreMethod = Exclude<keyof MessageStateStore, "sharedLimits" | "close">;

/** A proxied call. */
export type CallMethod = StoreMethod;

/** The worker store's group-commit counters (`SqliteStateStore.groupCommitStats`). */
export type GroupCommitStats = { readonly groups: number; readonly members: number };

/**
 * Options that cross into the worker: those of the in-thread store except `clock` (a function
 * cannot be posted; the worker uses `Date.now`).
 */
export type SqliteWorkerOptions = Omit<SqliteStateStoreOptions, "clock">;

/** Main → worker. */
export type ToWorker =
  | { type: "calls"; calls: { id: number; method: CallMethod; args: unknown[] }[] }
  | { type: "close" };

/** One call's outcome. */
export type CallResult =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: EncodedError };

/** Worker → main. */
export type FromWorker =
  | { type: "ready" }
  | { type: "openFailed"; error: EncodedError }
  | { type: "results"; results: CallResult[]; stats: GroupCommitStats }
  | { type: "closed" };
