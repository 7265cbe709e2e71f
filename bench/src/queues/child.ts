/**
 * One queue system in its own process (so a crash run can SIGKILL it). Modes:
 * - `run`: start the workers, enqueue `n` messages (`producers` enqueue calls in flight), wait
 *   until all are complete; prints `{"ms": …, "commits": …}` (first enqueue → last completion;
 *   SQLite transactions in that time, when the system counts them); with `limitMs`, stops
 *   counting then and reports how many were `done`.
 * - `enqueue`: enqueue `n` messages and exit (the crash run's backlog).
 * - `work`: start the workers, print `ready`, run until killed.
 *
 * Usage: `node child.ts '<json: SystemConfig & { mode, n, producers }>'`
 *
 * @module
 */
import { answer } from "../proc.ts";
import { openGraphileWorker } from "./graphileWorker.ts";
import { openHerald } from "./herald.ts";
import { openPgBoss } from "./pgBoss.ts";
import { openPlainjob } from "./plainjob.ts";
import type { Job, QueueSystem, SystemConfig } from "./system.ts";

type ChildArgs = SystemConfig & {
  mode: "run" | "enqueue" | "work";
  n: number;
  producers: number;
  /** Run mode: stop counting after this long and report what was done (a slow default). */
  limitMs?: number;
};
const args = JSON.parse(process.argv[2] ?? "{}") as ChildArgs;

const openers: Record<SystemConfig["system"], (c: SystemConfig) => Promise<QueueSystem>> = {
  "herald-sqlite": openHerald,
  "herald-postgres": openHerald,
  "pg-boss": openPgBoss,
  "graphile-worker": openGraphileWorker,
  plainjob: openPlainjob,
};

/** Message `i`: 100 chats, the payload id in the text so the platform side can count it. */
export const jobOf = (i: number): Job => ({ id: `m${i}`, chat: `c${i % 100}`, text: `m${i}` });

async function enqueueAll(system: QueueSystem, n: number, producers: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, producers) }, async () => {
      while (next < n) await system.enqueue(jobOf(next++));
    }),
  );
}

const system = await openers[args.system](args);
if (args.mode === "enqueue") {
  await enqueueAll(system, args.n, args.producers);
  await system.close();
  answer({ enqueued: args.n });
  process.exit(0);
}
await system.work();
if (args.mode === "work") {
  answer("ready");
} else {
  const commits0 = system.commits?.();
  const t0 = performance.now();
  await enqueueAll(system, args.n, args.producers);
  // Polled every 100 ms (a count on the same connection: more often would slow the SQLite systems).
  const limitMs = args.limitMs ?? Number.POSITIVE_INFINITY;
  let done = await system.completed();
  while (done < args.n && performance.now() - t0 < limitMs) {
    await new Promise((r) => setTimeout(r, 100));
    done = await system.completed();
  }
  const ms = performance.now() - t0;
  const commits = commits0 === undefined ? undefined : (system.commits?.() ?? 0) - commits0;
  await system.close();
  answer({ ms, commits, done });
  process.exit(0);
}
