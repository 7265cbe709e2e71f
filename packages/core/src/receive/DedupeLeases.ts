/**
 * The dedupe lease of inbound messages, as this runtime uses the store's primitives (DESIGN §3,
 * §5): `acquireDedupe` → `in_flight`, `completeDedupe` → `done` (kept ≥ 24 h), `releaseDedupe`
 * after a failure. The lease is the cross-process guard; nothing in memory replaces it.
 *
 * @module
 */

import { describeError } from "../context/errorInfo.ts";
import type { HeraldLogger } from "../logger.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { DedupeAcquireResult, DedupeKey } from "../state/types.ts";

/** Lease operations for one owner (the runtime's `instanceId`). */
export class DedupeLeases {
  readonly owner: string;
  readonly leaseMs: number;
  readonly #store: MessageStateStore;
  readonly #clock: () => number;
  readonly #ttlMs: number | undefined;
  readonly #log: HeraldLogger;

  constructor(options: {
    store: MessageStateStore;
    owner: string;
    clock: () => number;
    leaseMs: number;
    ttlMs: number | undefined;
    log: HeraldLogger;
  }) {
    this.#store = options.store;
    this.owner = options.owner;
    this.#clock = options.clock;
    this.leaseMs = options.leaseMs;
    this.#ttlMs = options.ttlMs;
    this.#log = options.log;
  }

  /**
   * Takes the lease. Call it only while the message is registered in this process's
   * `InFlightRegistry`: a live lease under our own owner id is then known to be left by a
   * previous run of this instance (a crash), and is taken back at once.
   */
  async acquire(key: DedupeKey): Promise<DedupeAcquireResult> {
    const options = { owner: this.owner, now: this.#clock(), leaseMs: this.leaseMs };
    const got = await this.#store.acquireDedupe(key, options);
    if (got.status !== "in_flight" || got.owner !== this.owner) return got;
    this.#log.info({ key }, "taking back a lease left by a previous run of this instance");
    await this.#store.releaseDedupe(key, this.owner);
    return this.#store.acquireDedupe(key, { ...options, now: this.#clock() });
  }

  /** Extends the lease by `leaseMs` from now. @returns false when it was lost. */
  renew(key: DedupeKey): Promise<boolean> {
    return this.#store.renewDedupe(key, this.owner, this.#clock() + this.leaseMs);
  }

  /** Marks the message `done` with `meta`. @returns false when the lease was lost. */
  complete(key: DedupeKey, meta: Record<string, unknown>): Promise<boolean> {
    return this.#store.completeDedupe(key, {
      owner: this.owner,
      now: this.#clock(),
      ...(this.#ttlMs === undefined ? {} : { ttlMs: this.#ttlMs }),
      meta,
    });
  }

  /** Gives the lease back so a redelivery runs. Never throws: a lost release just expires. */
  async release(key: DedupeKey): Promise<void> {
    try {
      await this.#store.releaseDedupe(key, this.owner);
    } catch (error) {
      this.#log.error({ key, error: describeError(error) }, "could not release dedupe lease");
    }
  }
}
