/**
 * The delivery worker (DESIGN §4): leases due intents (oldest first, FIFO per ordering key),
 * delivers them with bounded concurrency, renews leases while a send is in flight, recovers what
 * stopped workers left behind, and shuts down gracefully (finish in-flight sends, release
 * leases). Retries fire while the process keeps running, not only at restart.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { DurableSendIntent } from "../message/intent.ts";
import { dispatchSending, runAttempt, type SendingAttempt, sleep } from "./attempt.ts";
import type { DeliveryDeps } from "./deps.ts";
import { type DeliveryEvent, DeliveryEvents } from "./events.ts";
import { LeaseLoop } from "./leaseLoop.ts";
import { NoAdapterParking } from "./noAdapter.ts";
import { OutcomeWaits } from "./outcomeWaits.ts";
import { seedRateLimits } from "./ratelimit/seed.ts";
import {
  newRecoveryCursor,
  type RecoveryCursor,
  type RecoveryReport,
  recoverStale,
} from "./recovery.ts";

import { isSettled } from "./settlePoll.ts";
import { resolveUnknown } from "./unknown.ts";

/** Rows the startup pass reads at most before the loop's first lease. */
const RECOVERY_FIRST_PAGE = 200;
/** Time budget of one of the loop's passes (ms); the next pass continues. */
const RECOVERY_STEP_MS = 100;

export type { DeliveryEvent } from "./events.ts";

/** A folded first attempt handed to the worker (`deliverSending`). */
type Folded = { adapter: ChannelMessageAdapter; started: SendingAttempt };

/** Makes a lease owner id for this process boot. */
export function leaseOwnerId(workerId: string): string {
  return `${workerId}:${randomUUID().slice(0, 8)}`;
}

/**
 * Leases and delivers intents until stopped.
 *
 * @example
 * const worker = new DeliveryWorker(deps);
 * await worker.start();   // startup recovery within its budget, then the loop
 * worker.kick();          // something was enqueued: look now
 * await worker.stop();    // finish in-flight sends, release leases
 */
export class DeliveryWorker {
  readonly #deps: DeliveryDeps;
  readonly #inFlight = new Map<string, Promise<unknown>>();
  /** The waits of `waitFor` and this worker's recent outcomes (`outcomeWaits.ts`). */
  readonly #waits: OutcomeWaits;
  /** Leases due intents while running (`leaseLoop.ts`). */
  readonly #leases: LeaseLoop;
  /** The runtime's listeners (`deps.events`), or this worker's own when deps have none. */
  readonly #events: DeliveryEvents;
  readonly #abort = new AbortController();
  /** Aborted by `stop()`: the attempts leased ahead stop waiting for a slot. */
  #stopping = new AbortController();
  #running = false;
  #loop: Promise<void> | undefined;
  #nextRecoveryAt = 0;
  /** Where the last bounded recovery pass stopped (`recovery.ts`). */
  #cursor: RecoveryCursor = newRecoveryCursor();
  /**
   * Attempts tracked here that hold a delivery slot or wait for one (see `PREFETCH` in
   * `leaseLoop.ts`).
   */
  #needSlot = 0;
  /** Of those, the ones leased ahead, waiting for a slot. */
  #waitingForSlot = 0;

  readonly #parking: NoAdapterParking;

  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
    this.#events = deps.events ?? new DeliveryEvents();
    this.#parking = new NoAdapterParking(deps);
    this.#waits = new OutcomeWaits(deps);
    this.#leases = new LeaseLoop(deps, {
      running: () => this.#running,
      nextRecoveryAt: () => this.#nextRecoveryAt,
      recover: async () => {
        const r = await this.#recoverStep(this.#deps.options.recoveryRowsPerPass);
        return !r.complete || r.toUnknown + r.committed + r.skewRepaired + r.released > 0;
      },
      needSlot: () => this.#needSlot,
      waitingForSlot: () => this.#waitingForSlot,
      inFlight: () => this.#inFlight.size,
      deliver: (intent) => void this.#track(intent, undefined, true),
      failed: (error) => this.#emit({ type: "error", error }),
    });
  }

  /** Lease owner id of this worker (`${workerId}:${bootId}`). */
  get owner(): string {
    return this.#deps.owner;
  }

  /** Intents being delivered right now. */
  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /** Subscribes to worker events. @returns an unsubscribe function. */
  on(listener: (event: DeliveryEvent) => void): () => void {
    return this.#events.on(listener);
  }

  #emit(event: DeliveryEvent): void {
    this.#events.emit(event);
  }

  /**
   * Counts the platform calls the previous process made in the last window into the rate-limit
   * buckets (`seedRateLimits`, one store query), runs the first page of startup recovery (at
   * most 200 rows, within `recoveryBudgetMs`, no attempts consumed; the loop continues it after
   * its first lease) and starts the loop.
   * @returns the startup recovery report (`complete: false` when the loop continues it).
   */
  async start(): Promise<RecoveryReport> {
    if (this.#running) throw new Error("delivery worker already started");
    this.#running = true;
    this.#stopping = new AbortController();
    await this.#seedRateLimits();
    // One bounded pass ([H25], C53): it reads only the intents it may repair (the calls a
    // stopped process left in flight), one page at most; whatever is left, the loop continues
    // after its first lease, so the first due message is served before recovery walks the rest.
    const report = await this.#recoverStep(
      RECOVERY_FIRST_PAGE,
      this.#deps.options.recoveryBudgetMs,
    );
    this.#loop = this.#leases.run();
    return report;
  }

  /** A restart counts its predecessor's recent calls; a failed query only costs the seed. */
  async #seedRateLimits(): Promise<void> {
    const adapters = this.#deps.adapters?.() ?? [];
    if (adapters.length === 0) return;
    try {
      await seedRateLimits(this.#deps, adapters);
    } catch (err) {
      this.#deps.logger.warn({ err }, "could not count the recent platform calls into rate limits");
    }
  }

  /**
   * One whole recovery pass now, from the beginning (`herald recover`, tests), within `budgetMs`
   * (`complete: false` when it ran out; the loop's passes continue from there). The loop runs
   * bounded passes by itself (`recoveryRowsPerPass` rows each, continued by the next).
   */
  async recover(budgetMs = this.#deps.options.recoveryBudgetMs): Promise<RecoveryReport> {
    this.#cursor = newRecoveryCursor();
    return this.#recoverStep(Number.POSITIVE_INFINITY, budgetMs);
  }

  /**
   * One bounded pass, from where the last one stopped ([H25], C53): at most `maxRows` rows read
   * and `budgetMs`. An incomplete pass is continued at the loop's next turn, after its lease.
   */
  async #recoverStep(
    maxRows: number,
    budgetMs = Math.min(this.#deps.options.recoveryBudgetMs, RECOVERY_STEP_MS),
  ): Promise<RecoveryReport> {
    const report = await recoverStale(this.#deps, { budgetMs, maxRows, cursor: this.#cursor });
    this.#nextRecoveryAt = this.#deps.clock() + Math.min(this.#deps.options.leaseMs / 2, 5_000);
    if (
      report.toUnknown + report.committed + report.skewRepaired + report.released > 0 ||
      !report.complete
    ) {
      this.#emit({ type: "recovered", report });
    }
    if (!report.complete) this.#nextRecoveryAt = 0;
    return report;
  }

  /**
   * An adapter of `channel` was registered after the worker started (an account that opened
   * late): the intents parked for lack of one are due now, and the loop wakes.
   */
  async adapterAdded(channel: string): Promise<void> {
    if ((await this.#parking.resume(channel)) > 0) this.kick();
  }

  /** Wakes the loop (something was enqueued or became due). */
  kick(): void {
    this.#leases.kick();
  }

  /**
   * Leases at `at` (epoch ms on the runtime's clock) too: for an intent enqueued here that is due
   * only then (a live final held back by its preview's rate limit), so it goes out when due, not
   * at the loop's next poll.
   */
  wakeAt(at: number): void {
    this.#leases.wakeAt(at);
  }

  /**
   * Stops leasing, lets in-flight sends finish (up to `drainMs`), then aborts what is left and
   * releases leases.
   */
  async stop(drainMs = 10_000): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#stopping.abort();
    this.kick();
    await this.#loop;
    const drained = Promise.allSettled([...this.#inFlight.values()]);
    const timer = new AbortController();
    const timedOut = await Promise.race([
      drained.then(() => false),
      sleep(drainMs, timer.signal).then((elapsed) => elapsed),
    ]);
    timer.abort(); // do not keep the process alive for the rest of drainMs
    if (timedOut) {
      this.#abort.abort();
      await drained;
    }
    this.#leases.clearWakes();
  }

  /**
   * Waits until an intent is sent, failed, cancelled or held for an operator, or `timeoutMs`
   * passed. The store is polled every 500 ms meanwhile (another writer may settle it): one status
   * read for every intent waited on (`settlePoll.ts`).
   *
   * @param known - the intent as the caller has just written or read it (the enqueue result,
   *   the outcome of `deliverLeased`): it stands for the first store read. An outcome this
   *   worker settled since (it keeps the last `RECENT_OUTCOMES`, `outcomeWaits.ts`) is newer
   *   and taken instead; a change made by another process is seen at the next poll, as after
   *   any read.
   * @returns the intent as last read (or as this worker last wrote it).
   */
  waitFor(
    intentId: string,
    timeoutMs: number,
    known?: DurableSendIntent,
  ): Promise<DurableSendIntent | undefined> {
    return this.#waits.waitFor(intentId, timeoutMs, known);
  }

  /**
   * Delivers an intent this process already leased (the inline path of `runtime.send`), sharing
   * lease renewal and the `concurrency` bound (`deps.slots`, shared with sends without an intent
   * and live calls): when every slot is taken it waits (still `pending`, lease renewed) for one,
   * so in-flight platform calls never exceed `concurrency` whichever path started them.
   *
   * @returns the intent as the attempt left it, or undefined when it made none (parked for
   *   lack of an adapter, or aborted: read the store).
   */
  deliverLeased(intent: DurableSendIntent): Promise<DurableSendIntent | undefined> {
    return this.#track(intent);
  }

  /**
   * Finishes the folded first attempt of `runtime.send` (`delivery/fold.ts`): its `sending` row
   * is committed, the first call's tokens and one delivery slot are taken (the slot is released
   * here). Lease renewal, events and waiters as for {@link deliverLeased}.
   *
   * @returns the intent as the attempt left it (undefined when it was aborted).
   */
  deliverSending(
    adapter: ChannelMessageAdapter,
    started: SendingAttempt,
  ): Promise<DurableSendIntent | undefined> {
    return this.#track(started.intent, { adapter, started });
  }

  #track(
    intent: DurableSendIntent,
    folded?: Folded,
    fromLoop = false,
  ): Promise<DurableSendIntent | undefined> {
    const existing = this.#inFlight.get(intent.id);
    // The store leases an intent only when no live lease holds it, so a lease of an intent still
    // in flight here means its previous attempt already wrote its outcome (releasing the lease)
    // and is only winding down (with group commit, the lease can commit in the same transaction
    // as that outcome). Deliver the new lease after it instead of dropping it: dropped, it would
    // sit leased by us, untouched, until the lease expired.
    const p: Promise<DurableSendIntent | undefined> = (
      existing
        ? existing.then(() => this.#process(intent, folded, fromLoop))
        : this.#process(intent, folded, fromLoop)
    )
      .then(
        (result) => {
          // Not settled (a retry is scheduled, parked, aborted): it is leasable work again, and
          // one due again later is leased when it is due.
          if (!result || !isSettled(result)) {
            this.#leases.markBacklog();
            if (
              result?.nextAttemptAt !== undefined &&
              (result.status === "pending" || result.status === "unknown_after_send")
            ) {
              this.#leases.wakeAt(result.nextAttemptAt);
            }
          }
          return result;
        },
        (error: unknown) => {
          this.#leases.markBacklog();
          throw error;
        },
      )
      .finally(() => {
        if (this.#inFlight.get(intent.id) === p) this.#inFlight.delete(intent.id);
        this.#leases.attemptKick();
      });
    this.#inFlight.set(intent.id, p);
    return p;
  }

  /**
   * @param fromLoop - leased by the loop (`leaseLoop.ts`), not by `runtime.send`: leased ahead,
   *   it waits for a slot behind every other caller (`SlotWait.behind`); when the worker stops
   *   before one comes free, the attempt is not started and the lease is given back at once.
   */
  async #process(
    intent: DurableSendIntent,
    folded: Folded | undefined,
    fromLoop: boolean,
  ): Promise<DurableSendIntent | undefined> {
    const { store, owner, options } = this.#deps;
    const started = this.#deps.clock();
    this.#needSlot++;
    // The folded attempt took its slot before its `sending` row was committed.
    let slot = folded !== undefined;
    let needsSlot = true;
    // The platform calls are over (or there will be none): the slot goes to the next attempt
    // now, while this one writes its outcome, and the loop may lease for it.
    const callsDone = () => {
      if (slot) this.#deps.slots.release();
      slot = false;
      if (needsSlot) this.#needSlot--;
      needsSlot = false;
      this.#leases.attemptKick();
    };
    const adapter = folded?.adapter ?? this.#deps.adapterFor(intent.channel, intent.accountId);
    if (!adapter) {
      callsDone();
      // Stopped account or another process serves it: park with backoff, log once per account.
      await this.#parking.park(intent);
      return undefined;
    }
    this.#parking.served(intent);
    const renew = setInterval(
      () => {
        store.renewLease(intent.id, owner, this.#deps.clock() + options.leaseMs).catch(() => false);
      },
      Math.max(10, Math.floor(options.leaseMs / 3)),
    );
    try {
      if (!folded) {
        this.#waitingForSlot++;
        try {
          // Leased ahead (SQLite, see `LeaseLoop.run`), it queues behind every caller that did
          // not.
          const behind = fromLoop && store.groupsWritesPerTick === true;
          slot = await this.#deps.slots.acquire(
            fromLoop ? { behind, signal: this.#stopping.signal } : {},
          );
        } finally {
          this.#waitingForSlot--;
        }
        if (fromLoop && !this.#running) {
          // Leased by the loop and the worker is stopping (it gave up waiting, or got its slot
          // after the stop): another process may take it now, not once this one's calls answered.
          callsDone();
          await store.releaseLease(intent.id, owner).catch(() => false);
          return undefined;
        }
      }
      const signal = this.#abort.signal;
      const result = folded
        ? await dispatchSending(this.#deps, adapter, folded.started, signal, callsDone)
        : intent.status === "unknown_after_send"
          ? await resolveUnknown(this.#deps, adapter, intent, signal)
          : await runAttempt(this.#deps, adapter, intent, signal, callsDone);
      this.#waits.notify(result);
      this.#emit({ type: "settled", intent: result, durationMs: this.#deps.clock() - started });
      return result;
    } catch (error) {
      this.#deps.logger.error({ intentId: intent.id, err: error }, "delivery attempt aborted");
      this.#emit({ type: "error", intentId: intent.id, error });
      await store.releaseLease(intent.id, owner).catch(() => false);
      return undefined;
    } finally {
      if (slot) this.#deps.slots.release();
      slot = false;
      if (needsSlot) this.#needSlot--;
      needsSlot = false;
      clearInterval(renew);
    }
  }
}
