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
import { NoAdapterParking } from "./noAdapter.ts";
import { seedRateLimits } from "./ratelimit/seed.ts";
import { type RecoveryReport, recoverStale } from "./recovery.ts";
import { isSettled, SettlePoll } from "./settlePoll.ts";
import { resolveUnknown } from "./unknown.ts";

/** Events a worker emits for observers (metrics, logs, tests). */
export type DeliveryEvent =
  | { type: "settled"; intent: DurableSendIntent; durationMs: number }
  | { type: "recovered"; report: RecoveryReport }
  | { type: "error"; intentId?: string; error: unknown };

/** A folded first attempt handed to the worker (`deliverSending`). */
type Folded = { adapter: ChannelMessageAdapter; started: SendingAttempt };

/**
 * What ends one wait of `waitFor`: news of the intent (this worker's outcome, or a poll that
 * found it settled; `undefined`: it no longer exists), its deadline, or a failed poll.
 */
type Wake = { intent: DurableSendIntent | undefined } | { deadline: true } | { error: unknown };

/**
 * Attempts leased ahead, per delivery slot: the loop leases (a full `concurrency`) while fewer
 * than `concurrency × PREFETCH` leased intents wait for a slot, so with `concurrency` 32 up to
 * 63 of them wait beside the 32 holding one ([H19]: a finished call's slot starts the next
 * attempt in the same group commit as its outcome, instead of a lease round trip later). They
 * wait behind every other caller of the slots (`SlotWait.behind`).
 */
const PREFETCH = 1;

/** Longest delay `setTimeout` keeps, ms (a longer one, `Infinity` too, fires after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How many settled outcomes a worker keeps for `waitFor` (the oldest is dropped first). */
const RECENT_OUTCOMES = 1024;

/** Statuses no intent ever leaves (`failed` can: an operator's retry). */
function isFinal(intent: DurableSendIntent): boolean {
  return intent.status === "sent" || intent.status === "cancelled";
}

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
  readonly #waiters = new Map<string, Set<(wake: Wake) => void>>();
  /** Asks the store about the intents waited on that another writer may settle. */
  readonly #poll: SettlePoll;
  /** Settled outcomes of this worker's attempts (`waitFor`'s first look), newest last. */
  readonly #recent = new Map<string, DurableSendIntent>();
  readonly #listeners = new Set<(event: DeliveryEvent) => void>();
  readonly #abort = new AbortController();
  /** Aborted by `stop()`: the attempts leased ahead stop waiting for a slot. */
  #stopping = new AbortController();
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #kicked = false;
  /**
   * False once a lease found nothing while no attempt was in flight here, until something says
   * otherwise (a `kick()`: an enqueue, a retry, an adapter added; a recovery pass; an attempt
   * that did not settle; a lease that found work). While false, an attempt here that ends or
   * hands its slot on does not make the loop lease: its settling cannot make anything due (nothing waited
   * behind it that this worker knows of), and what other processes enqueue is found by the
   * poll every `pollIntervalMs`, as before. One send at a time costs no lease query.
   */
  #backlog = true;
  /** `kick()` calls so far: a lease that began before the last one cannot clear `#backlog`. */
  #kicks = 0;
  #nextRecoveryAt = 0;
  #lastLeaseAt = 0;
  /** Attempts tracked here that hold a delivery slot or wait for one (see {@link PREFETCH}). */
  #needSlot = 0;
  /** Of those, the ones leased ahead, waiting for a slot. */
  #waitingForSlot = 0;

  readonly #parking: NoAdapterParking;

  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
    this.#parking = new NoAdapterParking(deps);
    this.#poll = new SettlePoll(deps.store, {
      waiting: () => [...this.#waiters.keys()],
      found: (id, intent) => this.#wakeWaiters(id, { intent }),
      failed: (ids, error) => {
        for (const id of ids) this.#wakeWaiters(id, { error });
      },
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
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: DeliveryEvent): void {
    for (const l of this.#listeners) l(event);
  }

  /**
   * Counts the platform calls the previous process made in the last window into the rate-limit
   * buckets (`seedRateLimits`, one store query), runs startup recovery (within
   * `recoveryBudgetMs`, no attempts consumed) and starts the loop.
   * @returns the startup recovery report.
   */
  async start(): Promise<RecoveryReport> {
    if (this.#running) throw new Error("delivery worker already started");
    this.#running = true;
    this.#stopping = new AbortController();
    await this.#seedRateLimits();
    const report = await this.recover(this.#deps.options.recoveryBudgetMs);
    this.#loop = this.#run();
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

  /** One recovery pass now (also runs periodically from the loop). */
  async recover(budgetMs = this.#deps.options.recoveryBudgetMs): Promise<RecoveryReport> {
    const report = await recoverStale(this.#deps, budgetMs);
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
    this.#backlog = true;
    this.#kicks++;
    this.#wakeLoop();
  }

  /** An attempt here ended or handed its slot on: the loop leases again if work may wait. */
  #attemptKick(): void {
    if (this.#backlog) this.#wakeLoop();
  }

  #wakeLoop(): void {
    this.#kicked = true;
    this.#wake?.();
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
  }

  /**
   * Waits until an intent is sent, failed, cancelled or held for an operator, or `timeoutMs`
   * passed. The store is polled every 500 ms meanwhile (another writer may settle it): one status
   * read for every intent waited on (`settlePoll.ts`).
   *
   * @param known - the intent as the caller has just written or read it (the enqueue result,
   *   the outcome of `deliverLeased`): it stands for the first store read. An outcome this
   *   worker settled since (it keeps the last `RECENT_OUTCOMES`) is newer and taken instead; a
   *   change made by another process is seen at the next poll, as after any read.
   * @returns the intent as last read (or as this worker last wrote it).
   */
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

  #notify(intent: DurableSendIntent): void {
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
          // Not settled (a retry is scheduled, parked, aborted): it is leasable work again.
          if (!result || !isSettled(result)) this.#backlog = true;
          return result;
        },
        (error: unknown) => {
          this.#backlog = true;
          throw error;
        },
      )
      .finally(() => {
        if (this.#inFlight.get(intent.id) === p) this.#inFlight.delete(intent.id);
        this.#attemptKick();
      });
    this.#inFlight.set(intent.id, p);
    return p;
  }

  /**
   * @param fromLoop - leased by the loop (not by `runtime.send`): leased ahead, it waits for a
   *   slot behind every other caller (`SlotWait.behind`); when the worker stops before one comes
   *   free, the attempt is not started and the lease is given back at once.
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
      this.#attemptKick();
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
          // Leased ahead (SQLite, see `#run`), it queues behind every caller that did not.
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
      this.#notify(result);
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

  async #run(): Promise<void> {
    const { store, owner, options, clock } = this.#deps;
    while (this.#running) {
      try {
        if (clock() >= this.#nextRecoveryAt) {
          await this.recover();
          this.#backlog = true;
        }
        // Up to `concurrency` attempts hold slots and up to about twice as many more wait for
        // one, leased ahead, so a slot handed on when a call answers starts the next attempt at
        // once: its `sending` write joins the group commit of the finished attempt's outcome. The
        // lease that refills the attempts waiting is issued in that same turn of the event loop
        // (each slot handed on kicks the loop), so it joins that group commit too; it asks for a
        // full `concurrency` at once, since the other calls answering in that turn hand their
        // slots on only after it.
        // Only where one tick's writes commit together (`groupsWritesPerTick`: SQLite) does
        // leasing ahead save anything; elsewhere (PostgreSQL) it only holds intents other
        // processes could send now, so the loop leases for free slots (measured: 4 processes
        // on PostgreSQL drained 1.59× the minimum leasing ahead, 1.13× without).
        const ahead = store.groupsWritesPerTick ? options.concurrency * PREFETCH : 0;
        const roomNow = () =>
          ahead > 0 ? ahead - this.#waitingForSlot : options.concurrency - this.#needSlot;
        const room = roomNow();
        // Lease in batches: under load, one lease round trip per finished send would cost more
        // than the sends (the lease query walks past intents queued behind busy chats). Lease
        // when a quarter of the room is free, when no attempt needs a slot, or 20 ms (at least a
        // poll interval) after the last lease.
        const batch = Math.max(1, Math.floor(options.concurrency / 4));
        const due =
          room >= batch ||
          this.#needSlot === 0 ||
          clock() - this.#lastLeaseAt >= Math.max(options.pollIntervalMs, 20);
        const limit = ahead > 0 ? options.concurrency : room;
        let leased: DurableSendIntent[] = [];
        if (room > 0 && due) {
          this.#lastLeaseAt = clock();
          const kicks = this.#kicks;
          leased = await store.leaseDueIntents({
            owner,
            now: clock(),
            leaseMs: options.leaseMs,
            limit,
            statuses: ["pending", "unknown_after_send"],
          });
          if (leased.length > 0) this.#backlog = true;
          else if (leased.length === 0 && this.#inFlight.size === 0 && this.#kicks === kicks) {
            this.#backlog = false;
          }
          for (const intent of leased) void this.#track(intent, undefined, true);
        }
        // Lease again at once only after a full lease that left room (the ramp at the start).
        const idle = leased.length < limit || roomNow() < batch || !due;
        if (idle && !this.#kicked) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, options.pollIntervalMs);
            function done() {
              clearTimeout(timer);
              resolve();
            }
            this.#wake = done;
          });
          this.#wake = undefined;
        }
        this.#kicked = false;
      } catch (error) {
        this.#deps.logger.error({ err: error }, "delivery loop error; retrying");
        this.#emit({ type: "error", error });
        await sleep(options.pollIntervalMs);
      }
    }
  }
}
