/**
 * The fallback poll behind `DeliveryWorker.waitFor` ([H19]). An intent waited on can be settled
 * by a writer the worker does not hear from (another process on the same store, an operator's
 * `herald queue cancel`), so the store is asked about it every `intervalMs`.
 *
 * One poll asks about every intent waited on at once and reads only their status
 * (`MessageStateStore.getIntentStatuses`: a few columns, no JSON parsed); the whole row is read
 * only for an intent that looks settled. Before, each waiting intent read its whole row every
 * 500 ms: with 4,000 `runtime.send`s queued behind 100 chats, those reads were 15 % of the
 * sending process's time. A store without `getIntentStatuses` is read intent by intent, as
 * before.
 *
 * @module
 */
import { type DurableSendIntent, isHeldForOperator, TERMINAL_STATUSES } from "../message/intent.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { IntentStatusRow } from "../state/types.ts";

/** True when `waitFor` returns on it: terminal, or held for an operator. */
export function isSettled(intent: Pick<DurableSendIntent, "status" | "nextAttemptAt">): boolean {
  return TERMINAL_STATUSES.includes(intent.status) || isHeldForOperator(intent);
}

/**
 * Polls in a row that must fail to read an intent before the waits on it end with the error
 * (about 1.5 s at 500 ms apart).
 */
const FAILED_POLLS = 3;

/** Most ids asked about in one `getIntentStatuses` call. */
const CHUNK = 1_000;

/** What the poll tells the worker. */
export type SettlePollEvents = {
  /** The ids waited on right now. */
  waiting(): string[];
  /** `id` settled (the row as read), or no longer exists (`undefined`). */
  found(id: string, intent: DurableSendIntent | undefined): void;
  /**
   * The store could not be read, {@link FAILED_POLLS} polls in a row: every wait on `ids` ends
   * with `error`.
   */
  failed(ids: readonly string[], error: unknown): void;
};

/** Polls the store for settled intents while any is waited on. */
export class SettlePoll {
  readonly #store: MessageStateStore;
  readonly #events: SettlePollEvents;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  /** Polls in a row that could not read some intent. */
  #failedPolls = 0;

  /** @param intervalMs - time between polls, ms. */
  constructor(store: MessageStateStore, events: SettlePollEvents, intervalMs = 500) {
    this.#store = store;
    this.#events = events;
    this.#intervalMs = intervalMs;
  }

  /** Schedules the next poll, unless one is scheduled or running. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      void this.#poll().finally(() => {
        this.#timer = undefined;
        if (this.#events.waiting().length > 0) this.start();
      });
    }, this.#intervalMs);
    // The waits' own deadline timers keep the process alive, not the poll.
    this.#timer.unref?.();
  }

  async #poll(): Promise<void> {
    const ids = this.#events.waiting();
    const errors = new Map<string, unknown>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      let settled: string[];
      try {
        settled = await this.#settledOrGone(chunk, errors);
      } catch (error) {
        for (const id of chunk) errors.set(id, error);
        continue;
      }
      await Promise.all(settled.map((id) => this.#read(id, errors)));
    }
    if (errors.size === 0) {
      this.#failedPolls = 0;
      return;
    }
    // A blip (a reconnecting pool) ends no wait: the intents are durable and will be sent,
    // and a caller told otherwise may send again. A store that stays down ends them.
    if (++this.#failedPolls < FAILED_POLLS) return;
    for (const [id, error] of errors) this.#events.failed([id], error);
  }

  /** The ids of `chunk` whose intent looks settled or is gone. */
  async #settledOrGone(chunk: string[], errors: Map<string, unknown>): Promise<string[]> {
    if (!this.#store.getIntentStatuses) {
      // No status read: the whole rows, side by side (as every wait read its own before), each
      // reported here, so none is left to read again.
      await Promise.all(chunk.map((id) => this.#read(id, errors, true)));
      return [];
    }
    const rows = new Map<string, IntentStatusRow>();
    for (const row of await this.#store.getIntentStatuses(chunk)) rows.set(row.id, row);
    return chunk.filter((id) => {
      const row = rows.get(id);
      return !row || isSettled(row);
    });
  }

  /**
   * Reads the whole row of `id` and reports it (only when settled or gone, with `onlySettled`).
   * A row that cannot be read is noted in `errors`: it touches the waits on it alone, not those
   * on the rest of its chunk.
   */
  async #read(id: string, errors: Map<string, unknown>, onlySettled = false): Promise<void> {
    let intent: DurableSendIntent | undefined;
    try {
      intent = await this.#store.getIntent(id);
    } catch (error) {
      errors.set(id, error);
      return;
    }
    if (!onlySettled || !intent || isSettled(intent)) this.#events.found(id, intent);
  }
}
