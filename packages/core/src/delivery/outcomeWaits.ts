/**
 * The waits behind `DeliveryWorker.waitFor`: callers waiting for an intent to settle, woken by
 * this worker's own outcomes ({@link OutcomeWaits.notify}) or by the fallback poll of the store
 * (`settlePoll.ts`), and the last {@link RECENT_OUTCOMES} outcomes this worker settled (a
 * wait's first look).
 *
 * @module
 */
import type { DurableSendIntent } from "../message/intent.ts";
import type { DeliveryDeps } from "./deps.ts";
import { isSettled, SettlePoll } from "./settlePoll.ts";

/**
 * What ends one wait of `waitFor`: news of the intent (this worker's outcome, or a poll that
 * found it settled; `undefined`: it no longer exists), its deadline, or a failed poll.
 */
type Wake = { intent: DurableSendIntent | undefined } | { deadline: true } | { error: unknown };

/** Longest delay `setTimeout` keeps, ms (a longer one, `Infinity` too, fires after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How many settled outcomes a worker keeps for `waitFor` (the oldest is dropped first). */
const RECENT_OUTCOMES = 1024;

/** Statuses no intent ever leaves (`failed` can: an operator's retry). */
function isFinal(intent: DurableSendIntent): boolean {
  return intent.status === "sent" || intent.status === "cancelled";
}

/** The waits on intents of one worker, and the outcomes it settled lately. */
export class OutcomeWaits {
  readonly #deps: Pick<DeliveryDeps, "store" | "clock">;
  readonly #waiters = new Map<string, Set<(wake: Wake) => void>>();
  /** Asks the store about the intents waited on that another writer may settle. */
  readonly #poll: SettlePoll;
  /** Settled outcomes of this worker's attempts (`waitFor`'s first look), newest last. */
  readonly #recent = new Map<string, DurableSendIntent>();

  constructor(deps: Pick<DeliveryDeps, "store" | "clock">) {
    this.#deps = deps;
    this.#poll = new SettlePoll(deps.store, {
      waiting: () => [...this.#waiters.keys()],
      found: (id, intent) => this.#wakeWaiters(id, { intent }),
      failed: (ids, error) => {
        for (const id of ids) this.#wakeWaiters(id, { error });
      },
    });
  }

  /** `DeliveryWorker.waitFor` (see there). */
  async waitFor(
    intentId: string,
    timeoutMs: number,
    known?: DurableSendIntent,
  ): Promise<DurableSendIntent | undefined> {
    const deadline = this.#deps.clock() + timeoutMs;
    // `sent` and `cancelled` never change; another outcome counts when it is not older.
    const recent = this.#recent.get(intentId);
    const newer =
      recent && (isFinal(recent) || (known && recent.updatedAt >= known.updatedAt))
        ? recent
        : undefined;
    let current = newer ?? known ?? (await this.#deps.store.getIntent(intentId));
    // The caller's copy is as old as the call: a wait that ends without news reads the store.
    let stale = current === known;
    while (current && !isSettled(current)) {
      const left = deadline - this.#deps.clock();
      if (!(left > 0)) break; // past the deadline, or none (`timeoutMs` NaN)
      const woke = await new Promise<Wake>((resolve) => {
        const set = this.#waiters.get(intentId) ?? new Set();
        const done = (wake: Wake) => {
          clearTimeout(timer);
          set.delete(done);
          if (set.size === 0 && this.#waiters.get(intentId) === set) {
            this.#waiters.delete(intentId);
          }
          resolve(wake);
        };
        const timer = setTimeout(() => done({ deadline: true }), Math.min(left, MAX_TIMER_MS));
        set.add(done);
        this.#waiters.set(intentId, set);
        this.#poll.start();
      });
      // The timer ran out: the loop ends when the deadline passed on the runtime's clock, and
      // waits again when not (a `timeoutMs` longer than a timer runs, a clock behind the timer).
      if ("deadline" in woke) {
        stale = true;
        continue;
      }
      if ("error" in woke) throw woke.error;
      current = woke.intent;
      stale = false;
    }
    if (stale && current && !isSettled(current))
      current = await this.#deps.store.getIntent(intentId);
    return current;
  }

  /** Wakes the waits on `id` (a poll found it settled or gone, or could not read it). */
  #wakeWaiters(id: string, wake: Wake): void {
    const set = this.#waiters.get(id);
    if (!set) return;
    this.#waiters.delete(id);
    for (const w of [...set]) w(wake);
  }

  /** An attempt of this worker left `intent` so: the waits on it hear, a settled one is kept. */
  notify(intent: DurableSendIntent): void {
    if (isSettled(intent)) {
      this.#recent.delete(intent.id);
      this.#recent.set(intent.id, intent);
      if (this.#recent.size > RECENT_OUTCOMES) {
        this.#recent.delete(this.#recent.keys().next().value as string);
      }
    }
    const set = this.#waiters.get(intent.id);
    if (!set) return;
    if (isSettled(intent)) this.#waiters.delete(intent.id);
    for (const w of [...set]) w({ intent });
  }
}
