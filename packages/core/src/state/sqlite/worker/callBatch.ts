/**
 * The calls of {@link SqliteWorkerStore} on their way to the worker thread and back. Calls made
 * in one main-thread tick are posted as one message (at most {@link MAX_BATCH} calls each), so
 * the worker starts them in one tick and its group commit writes them in one transaction; each
 * result is matched to its call by id. The worker is referenced only while calls are queued or
 * in flight.
 *
 * @module
 */
// The module's own setImmediate: test suites that fake the global timers do not stall calls.
import { setImmediate } from "node:timers";
import type { Worker } from "node:worker_threads";
import { StoreUnavailableError } from "../../errors.ts";
import { wireArgs } from "./args.ts";
import { decodeError } from "./errorCodec.ts";
import type { CallMethod, CallResult, ToWorker } from "./protocol.ts";

/** Most calls in one posted message (the group commit's default `maxMembers`). */
const MAX_BATCH = 256;

type Call = {
  id: number;
  method: CallMethod;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

/** What the calls read of the store. */
export type CallBatchHost = {
  /** The worker serving the store now (a new one after a restart). */
  worker(): Worker;
  /** True when nothing is to be posted: the store closed, failed, or its worker is down. */
  unavailable(): boolean;
  /** True once `close()` began: it holds the process until the worker closed the database. */
  closing(): boolean;
};

/** Calls queued for the next message to the worker, and those it has not answered yet. */
export class CallBatch {
  readonly #host: CallBatchHost;
  readonly #inflight = new Map<number, Call>();
  #batch: Call[] = [];
  #scheduled = false;
  #nextId = 1;

  constructor(host: CallBatchHost) {
    this.#host = host;
  }

  /** True when no call is queued or in flight: an idle worker must not keep the process alive. */
  get idle(): boolean {
    return this.#inflight.size === 0 && this.#batch.length === 0;
  }

  /**
   * Queues one call for the message posted at the end of this tick.
   * @param args - as `wireArgs` made them.
   */
  add<T>(method: CallMethod, args: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = this.#nextId++;
      this.#batch.push({
        id,
        method,
        args,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (this.#batch.length === 1 && this.#inflight.size === 0) this.#host.worker().ref();
      if (!this.#scheduled) {
        this.#scheduled = true;
        // setImmediate, not a microtask: the continuations of the last results (each several
        // promise hops deep) all get to issue their next call into the same batch.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Posts the queued calls (at most {@link MAX_BATCH}, the rest next tick; every one: `all`). */
  flush(all = false): void {
    this.#scheduled = false;
    // A huge burst goes as several messages, one per tick: cloning 10,000 calls at once would
    // hold the loop for what the worker saves it. A group commits at most 256 members anyway.
    const batch = all ? this.#batch : this.#batch.slice(0, MAX_BATCH);
    this.#batch = all ? [] : this.#batch.slice(batch.length);
    if (this.#batch.length > 0) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 0 || this.#host.unavailable()) return;
    for (const c of batch) this.#inflight.set(c.id, c);
    const wire = (calls: Call[]): ToWorker => ({
      type: "calls",
      calls: calls.map(({ id, method, args }) => ({ id, method, args })),
    });
    const worker = this.#host.worker();
    try {
      worker.postMessage(wire(batch));
    } catch {
      // An argument that looked plain but cannot be cloned (a Proxy, …): post each call alone,
      // the offending ones as their JSON round trip, so only a call JSON rejects too fails.
      for (const c of batch) {
        try {
          worker.postMessage(wire([c]));
        } catch {
          try {
            worker.postMessage(wire([{ ...c, args: wireArgs(c.args, true) }]));
          } catch (error) {
            this.#inflight.delete(c.id);
            c.reject(new StoreUnavailableError(c.method, error));
          }
        }
      }
      // A rejected call may have been the last one in flight: an idle worker must not keep
      // the process alive.
      if (this.idle && !this.#host.closing()) worker.unref();
    }
  }

  /** Settles the calls a `results` message answers. */
  settle(results: readonly CallResult[]): void {
    for (const r of results) {
      const call = this.#inflight.get(r.id);
      if (!call) continue;
      this.#inflight.delete(r.id);
      if (r.ok) call.resolve(r.value);
      else call.reject(decodeError(r.error));
    }
  }

  /** Rejects every call queued or in flight with {@link StoreUnavailableError} (`cause`). */
  failAll(cause: unknown): void {
    const calls = [...this.#inflight.values(), ...this.#batch];
    this.#inflight.clear();
    this.#batch = [];
    for (const c of calls) c.reject(new StoreUnavailableError(c.method, cause));
  }
}
