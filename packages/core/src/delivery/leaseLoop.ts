/**
 * The lease loop of the delivery worker (DESIGN §4): while the worker runs, it leases due intents
 * in batches (ahead of the free delivery slots where one tick's writes commit together) and
 * hands them to the worker, runs the periodic recovery pass, and sleeps a poll interval when
 * nothing woke it. It leases only while work may wait (`kick()`, see {@link LeaseLoop.kick}).
 *
 * @module
 */
import type { DurableSendIntent } from "../message/intent.ts";
import { sleep } from "./attempt.ts";
import type { DeliveryDeps } from "./deps.ts";

/**
 * Attempts leased ahead, per delivery slot: the loop leases (a full `concurrency`) while fewer
 * than `concurrency × PREFETCH` leased intents wait for a slot, so with `concurrency` 32 up to
 * 63 of them wait beside the 32 holding one ([H19]: a finished call's slot starts the next
 * attempt in the same group commit as its outcome, instead of a lease round trip later). They
 * wait behind every other caller of the slots (`SlotWait.behind`).
 */
const PREFETCH = 1;

/** Retry times the loop keeps a wake for (the later ones are found by the poll). */
const MAX_WAKES = 1024;

/** What the loop reads of the worker and hands to it. */
export type LeaseLoopHost = {
  /** False once the worker is stopping: the loop ends. */
  running(): boolean;
  /** When the next recovery pass is due (epoch ms on `deps.clock`; `recover` sets it). */
  nextRecoveryAt(): number;
  /**
   * One bounded recovery pass, continuing the last one.
   * @returns true when it changed something or stopped at its bound (lease again at once).
   */
  recover(): Promise<boolean>;
  /** Attempts tracked by the worker that hold a delivery slot or wait for one. */
  needSlot(): number;
  /** Of those, the ones leased ahead, waiting for a slot. */
  waitingForSlot(): number;
  /** Intents the worker is delivering right now. */
  inFlight(): number;
  /** Delivers an intent the loop leased (not awaited). */
  deliver(intent: DurableSendIntent): void;
  /** One turn of the loop failed (already logged): tell the observers. */
  failed(error: unknown): void;
};

/** Leases due intents for the worker until it stops; woken early by {@link LeaseLoop.kick}. */
export class LeaseLoop {
  readonly #deps: DeliveryDeps;
  readonly #host: LeaseLoopHost;
  #wake: (() => void) | undefined;
  #kicked = false;
  /**
   * False once a lease found nothing while no attempt was in flight here, until something says
   * otherwise (a `kick()`: an enqueue, a retry, an adapter added; a recovery pass; an attempt
   * that did not settle; a lease that found work). While false, an attempt here that ends or
   * hands its slot on does not make the loop lease: its settling cannot make anything due
   * (nothing waited behind it that this worker knows of), and what other processes enqueue is
   * found by the poll every `pollIntervalMs`, as before. One send at a time costs no lease
   * query.
   */
  #backlog = true;
  /** `kick()` calls so far: a lease that began before the last one cannot clear `#backlog`. */
  #kicks = 0;
  #lastLeaseAt = 0;
  /** When attempts here are due again (epoch ms on `deps.clock`), earliest first. */
  readonly #wakes: number[] = [];
  #wakeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(deps: DeliveryDeps, host: LeaseLoopHost) {
    this.#deps = deps;
    this.#host = host;
  }

  /** Wakes the loop (something was enqueued or became due). */
  kick(): void {
    this.#backlog = true;
    this.#kicks++;
    this.#wakeLoop();
  }

  /** An attempt here ended or handed its slot on: the loop leases again if work may wait. */
  attemptKick(): void {
    if (this.#backlog) this.#wakeLoop();
  }

  /** An attempt did not settle (a retry is scheduled, parked, aborted): leasable work again. */
  markBacklog(): void {
    this.#backlog = true;
  }

  /**
   * An attempt here left its intent due again at `at` (epoch ms on `deps.clock`: a retry after
   * its backoff, an unknown send's next check): the loop leases then, not at its next poll. (The
   * lease its end set off ran before `at` and found nothing; left to itself the loop would sleep a
   * whole `pollIntervalMs`.) One timer, for the earliest time kept; at most {@link MAX_WAKES}.
   */
  wakeAt(at: number): void {
    if (!Number.isFinite(at)) return;
    let i = this.#wakes.length;
    while (i > 0 && (this.#wakes[i - 1] as number) > at) i--;
    if (i >= MAX_WAKES) return;
    this.#wakes.splice(i, 0, at);
    if (this.#wakes.length > MAX_WAKES) this.#wakes.pop();
    if (i === 0) this.#armWake();
  }

  /** Drops the wake timer (the worker stopped). */
  clearWakes(): void {
    this.#wakes.length = 0;
    if (this.#wakeTimer) clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
  }

  /** @param minMs - the shortest delay (a timer that fired before the clock got there waits longer). */
  #armWake(minMs = 1): void {
    if (this.#wakeTimer) clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    const next = this.#wakes[0];
    if (next === undefined) return;
    this.#wakeTimer = setTimeout(
      () => {
        this.#wakeTimer = undefined;
        const now = this.#deps.clock();
        let due = 0;
        while (due < this.#wakes.length && (this.#wakes[due] as number) <= now) due++;
        this.#wakes.splice(0, due);
        if (due > 0) this.kick();
        // Fired before the clock reached the earliest (ms rounding, or a clock that is not the
        // timers' own, as in tests on manual time): wait a little longer, not a 1 ms spin.
        this.#armWake(due > 0 ? 1 : 20);
      },
      Math.max(minMs, next - this.#deps.clock()),
    );
    this.#wakeTimer.unref?.();
  }

  #wakeLoop(): void {
    this.#kicked = true;
    this.#wake?.();
  }

  /** Runs the loop until `host.running()` is false (checked once per turn). */
  async run(): Promise<void> {
    const { store, owner, options, clock } = this.#deps;
    while (this.#host.running()) {
      try {
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
          ahead > 0
            ? ahead - this.#host.waitingForSlot()
            : options.concurrency - this.#host.needSlot();
        const room = roomNow();
        // Lease in batches: under load, one lease round trip per finished send would cost more
        // than the sends (the lease query walks past intents queued behind busy chats). Lease
        // when a quarter of the room is free, when no attempt needs a slot, or 20 ms (at least a
        // poll interval) after the last lease.
        const batch = Math.max(1, Math.floor(options.concurrency / 4));
        const due =
          room >= batch ||
          this.#host.needSlot() === 0 ||
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
          else if (leased.length === 0 && this.#host.inFlight() === 0 && this.#kicks === kicks) {
            this.#backlog = false;
          }
          for (const intent of leased) this.#host.deliver(intent);
        }
        // The periodic recovery pass, after the lease ([H25], C53): bounded (a page of the
        // intents it may repair), continued at the next turn when cut off, so the first due
        // message after a start is served before recovery walks the rest.
        let recovered = false;
        if (clock() >= this.#host.nextRecoveryAt()) {
          recovered = await this.#host.recover();
          this.#backlog = true;
        }
        // Lease again at once only after a full lease that left room (the ramp at the start),
        // or a recovery pass that changed something or has more to do.
        const idle = (leased.length < limit || roomNow() < batch || !due) && !recovered;
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
        this.#host.failed(error);
        await sleep(options.pollIntervalMs);
      }
    }
  }
}
