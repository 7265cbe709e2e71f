/**
 * Starts the worker thread of {@link SqliteWorkerStore} (`sqliteWorker.ts`) and waits until its
 * database is open and migrated: the first start in `openSqliteStateStore` and every restart
 * after a worker died.
 *
 * @module
 */
import { Worker } from "node:worker_threads";
import { StoreUnavailableError } from "../../errors.ts";
import { decodeError } from "./errorCodec.ts";
import type { FromWorker, SqliteWorkerOptions } from "./protocol.ts";

// Source: src/state/sqlite/worker/startWorker.ts → ./sqliteWorker.ts. Built: the bundle
// holding this code sits in dist/ (index.mjs or a shared chunk) → ./sqliteWorker.mjs.
const workerUrl = import.meta.url.endsWith(".ts")
  ? new URL("./sqliteWorker.ts", import.meta.url)
  : new URL("./sqliteWorker.mjs", import.meta.url);

/** Starts a worker and resolves once its database is open and migrated. */
export async function startWorker(options: SqliteWorkerOptions): Promise<Worker> {
  let worker: Worker;
  try {
    // The worker inherits the process's flags, except `--input-type` (it applies to the
    // main entry only and makes a worker's file entry fail to load).
    const inherited = process.execArgv.filter((a) => !a.startsWith("--input-type"));
    worker = new Worker(workerUrl, {
      workerData: options,
      ...(inherited.length < process.execArgv.length ? { execArgv: inherited } : {}),
    });
  } catch (error) {
    throw new StoreUnavailableError(`open ${options.path}`, error);
  }
  // Opening holds the process like any call in flight; `WorkerSupervisor` unrefs it once idle.
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) =>
      reject(
        new StoreUnavailableError(
          `open ${options.path}`,
          new Error(`store worker exited with code ${code}`),
        ),
      );
    const onError = (error: unknown) =>
      reject(new StoreUnavailableError(`open ${options.path}`, error));
    worker.once("exit", onExit);
    worker.once("error", onError);
    worker.once("message", (message: FromWorker) => {
      worker.off("exit", onExit);
      worker.off("error", onError);
      if (message.type === "ready") resolve();
      else if (message.type === "openFailed") {
        void worker.terminate();
        reject(decodeError(message.error));
      } else reject(new Error(`store worker sent ${message.type} before ready`));
    });
  });
  return worker;
}
