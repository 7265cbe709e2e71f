/**
 * Worker-thread entry of {@link SqliteWorkerStore}: owns one {@link SqliteStateStore} and runs
 * the calls the main thread posts. Every call of one posted batch is started in the same tick,
 * so the store's group commit puts the batch's writes into one transaction; the results of each
 * tick go back as one message. A result is posted only once the store's promise settled, i.e.
 * after `COMMIT` returned: durability is the in-thread store's.
 *
 * Started by `openSqliteStateStore` with the options as `workerData`; not for direct use.
 *
 * @module
 */
// The module's own setImmediate: test suites that fake the global timers do not stall results.
import { setImmediate } from "node:timers";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { failpoint } from "../../../failpoint.ts";
import { SqliteStateStore } from "../SqliteStateStore.ts";
import { encodeError } from "./errorCodec.ts";
import type { CallResult, FromWorker, SqliteWorkerOptions, ToWorker } from "./protocol.ts";

const port = parentPort;
if (!port) throw new Error("sqliteWorker.ts runs only as a worker thread (openSqliteStateStore)");
const post = (message: FromWorker) => port.postMessage(message);

let outbox: CallResult[] = [];
/** The store served (its group-commit counters go along with every batch of results). */
let served: SqliteStateStore | undefined;
let flushScheduled = false;

function flush(): void {
  const results = outbox;
  outbox = [];
  if (results.length === 0) return;
  // Counted before the members of a group resolve: the counters include every result's group.
  const stats = served?.groupCommitStats ?? { groups: 0, members: 0 };
  try {
    post({ type: "results", results, stats });
  } catch {
    // A result that cannot be cloned: send each alone, the uncloneable ones as errors.
    for (const r of results) {
      try {
        post({ type: "results", results: [r], stats });
      } catch (error) {
        post({
          type: "results",
          results: [{ id: r.id, ok: false, error: encodeError(error) }],
          stats,
        });
      }
    }
  }
}

function settle(result: CallResult): void {
  outbox.push(result);
  if (flushScheduled) return;
  flushScheduled = true;
  // After the promise jobs of one group's members have all run: one message per group.
  setImmediate(() => {
    flushScheduled = false;
    flush();
  });
}

function start(store: SqliteStateStore, id: number, method: string, args: unknown[]): void {
  let pending: Promise<unknown>;
  try {
    const fn = (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
    if (typeof fn !== "function") throw new TypeError(`unknown store method ${method}`);
    pending = fn.apply(store, args);
  } catch (error) {
    pending = Promise.reject(error);
  }
  pending.then(
    (value) => settle({ id, ok: true, value }),
    (error: unknown) => settle({ id, ok: false, error: encodeError(error) }),
  );
}

function serve(store: SqliteStateStore, on: MessagePort): void {
  served = store;
  on.on("message", (message: ToWorker) => {
    // Crash tests arm this to make the worker die the way a bug in it would (uncaught).
    failpoint("store.worker_message");
    if (message.type === "calls") {
      for (const c of message.calls) start(store, c.id, c.method, c.args);
      return;
    }
    // close: every call posted before it has started; the store drains them, then closes.
    void store.close().then(() => {
      flush();
      post({ type: "closed" });
      on.close();
    });
  });
}

function open(): SqliteStateStore | undefined {
  try {
    return new SqliteStateStore(workerData as SqliteWorkerOptions);
  } catch (error) {
    // Nothing else keeps the thread alive: it ends once the port is closed.
    post({ type: "openFailed", error: encodeError(error) });
    port?.close();
    return undefined;
  }
}

const store = open();
if (store) {
  post({ type: "ready" });
  serve(store, port);
}
