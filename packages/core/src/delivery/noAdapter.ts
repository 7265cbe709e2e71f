/**
 * Intents of a channel account that has no adapter in this process (its credentials were
 * rejected, it is still opening, or another process serves it) are parked instead of being
 * leased again every poll: `nextAttemptAt` moves out with a backoff (1 s doubling to 30 s per
 * account, no attempt consumed) and the worker logs once per (channel, account) with the fix.
 * When an adapter of that channel is registered (the account opened after the worker started,
 * as the gateway's accounts do at every start), its parked intents are due again at once
 * ({@link NoAdapterParking.resume}) instead of at the end of their wait.
 *
 * @module
 */
import type { DurableSendIntent } from "../message/intent.ts";
import type { DeliveryDeps } from "./deps.ts";

/** First and longest wait before a parked intent is leased again, in ms. */
export const NO_ADAPTER_PARK_MS = { first: 1_000, max: 30_000 } as const;

/** Parks intents whose channel account has no adapter; one log line per account outage. */
export class NoAdapterParking {
  readonly #deps: DeliveryDeps;
  /** Per `channel/account`: when its outage was first seen, and the current wait. */
  readonly #outages = new Map<string, { since: number; waitMs: number; lastAt: number }>();
  /** Per channel: the intents this worker parked (ids), until an adapter of it is registered. */
  readonly #parked = new Map<string, Set<string>>();

  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
  }

  /** The account has an adapter again: a later outage is logged anew. */
  served(intent: DurableSendIntent): void {
    if (this.#outages.size > 0) this.#outages.delete(keyOf(intent));
  }

  /** Moves `intent` (leased by this worker) out by the account's current wait and releases it. */
  async park(intent: DurableSendIntent): Promise<void> {
    const { store, owner, clock, logger } = this.#deps;
    const key = keyOf(intent);
    const now = clock();
    let outage = this.#outages.get(key);
    if (!outage) {
      outage = { since: now, waitMs: NO_ADAPTER_PARK_MS.first, lastAt: now };
      this.#outages.set(key, outage);
      logger.warn(
        { channel: intent.channel, accountId: intent.accountId, intentId: intent.id },
        `no adapter for ${key} in this process (account stopped, still opening, or served elsewhere): its intents wait and are retried with backoff up to ${NO_ADAPTER_PARK_MS.max / 1_000} s; fix: start the account (see herald start's output and herald doctor) or add it to the config — nothing is lost`,
      );
    } else if (now - outage.lastAt >= outage.waitMs) {
      // One lease round later: the next round waits twice as long.
      outage.waitMs = Math.min(NO_ADAPTER_PARK_MS.max, outage.waitMs * 2);
      outage.lastAt = now;
    }
    const parked = this.#parked.get(intent.channel) ?? new Set<string>();
    this.#parked.set(intent.channel, parked.add(intent.id));
    try {
      await store.updateIntent(
        intent.id,
        { status: intent.status, owner },
        { nextAttemptAt: now + outage.waitMs, lease: "release" },
      );
    } catch {
      await store.releaseLease(intent.id, owner).catch(() => false);
    }
  }

  /**
   * An adapter of `channel` was registered: its parked intents (still `pending` or
   * `unknown_after_send`) are due now. @returns how many were made due; the caller wakes the worker.
   */
  async resume(channel: string): Promise<number> {
    const ids = this.#parked.get(channel);
    if (!ids || ids.size === 0) return 0;
    this.#parked.delete(channel);
    for (const key of [...this.#outages.keys()])
      if (key.startsWith(`${channel}/`)) this.#outages.delete(key);
    let due = 0;
    for (const id of ids) {
      try {
        // Only the schedule changes (no lease is taken or dropped); an intent that moved on
        // meanwhile (sending, sent, cancelled) keeps its state.
        const intent = await this.#deps.store.getIntent(id);
        const status = intent?.status;
        if (status !== "pending" && status !== "unknown_after_send") continue;
        await this.#deps.store.updateIntent(id, { status }, { nextAttemptAt: null });
        due += 1;
      } catch {
        // Moved on meanwhile (leased, sent, cancelled): its own schedule stands.
      }
    }
    return due;
  }
}

const keyOf = (intent: DurableSendIntent) => `${intent.channel}/${intent.accountId ?? "default"}`;
