/**
 * Everything a test starts that outlives its promise — child processes, servers — registered
 * here is ended by {@link endTracked} (the suite's setup file calls it after every test file,
 * also when a test timed out and never reached its own cleanup), and child processes are
 * SIGKILLed when the test process exits. Without it a timed-out test's children keep running,
 * and their pipes keep the runner from exiting.
 *
 * The registry lives on `globalThis`, so a helper loaded twice (sources and `dist/`) shares it.
 *
 * @module
 */
import type { ChildProcess } from "node:child_process";

type Registry = { children: Set<ChildProcess>; closers: Set<() => unknown> };

const KEY = Symbol.for("herald.testing.teardown");

function registry(): Registry {
  const g = globalThis as { [KEY]?: Registry };
  let r = g[KEY];
  if (!r) {
    const created: Registry = { children: new Set(), closers: new Set() };
    r = created;
    g[KEY] = created;
    // Synchronous only: SIGKILL every child still running when this process ends.
    process.once("exit", () => {
      for (const child of created.children) killQuietly(child);
    });
  }
  return r;
}

function killQuietly(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    child.kill("SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * Registers a child process to be SIGKILLed at teardown if it still runs; it leaves the
 * registry by itself when it exits.
 *
 * @returns the same child, for `const child = trackChild(spawn(…))`.
 */
export function trackChild<C extends ChildProcess>(child: C): C {
  const { children } = registry();
  if (child.exitCode !== null || child.signalCode !== null) return child;
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/**
 * Registers a closer (a server's `close`, a store's `close`) to run at teardown unless it was
 * untracked first.
 *
 * @returns a function that removes the closer (call it when the test closed the thing itself).
 */
export function trackCloser(close: () => unknown): () => void {
  const { closers } = registry();
  closers.add(close);
  return () => {
    closers.delete(close);
  };
}

/** How many children and closers are registered (for tests of this module). */
export function trackedCount(): { children: number; closers: number } {
  const { children, closers } = registry();
  return { children: children.size, closers: closers.size };
}

/**
 * Ends everything registered: SIGKILLs the children (and waits for their exit), runs the
 * closers, each bounded by `timeoutMs` so a closer that hangs cannot hang the teardown.
 * Errors of closers are ignored (the thing is being torn down after a failure).
 *
 * @param timeoutMs - upper bound per closer and for the children's exits. @defaultValue 5_000
 */
export async function endTracked(timeoutMs = 5_000): Promise<void> {
  const { children, closers } = registry();
  const bounded = (p: Promise<unknown>) =>
    Promise.race([
      p.catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  const exits = [...children].map((child) =>
    bounded(
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
        child.once("exit", resolve);
        killQuietly(child);
      }),
    ),
  );
  const pending = [...closers];
  closers.clear();
  await Promise.all([...exits, ...pending.map((close) => bounded(Promise.resolve().then(close)))]);
  children.clear();
}
