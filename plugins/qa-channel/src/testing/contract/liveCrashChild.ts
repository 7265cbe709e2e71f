/**
 * Child process of the live crash tests: the harness's real adapter and a runtime on a SQLite
 * file, streaming a live message to the parent's fake platform.
 *
 * - phase `stream`: opens the session, streams previews (waiting for each to land), then
 *   finalizes — unless an armed failpoint kills it first;
 * - phase `rerun`: starts the runtime (live recovery runs for the dead incarnation's sessions),
 *   then does what a bot does when the inbound message is handled again — opens the session
 *   under the same key and finalizes it (a session whose final exists is replayed: nothing is
 *   sent again) — and waits until no live session and no final is left unfinished; exits 0.
 *
 * Usage: `node [--conditions=herald-source] liveCrashChild.ts '<json LiveCrashChildConfig>'`
 *
 * @module
 */
import type { MessageTarget } from "@herald/plugin-sdk/channel-message";
import { createMessageRuntime, isHeldForOperator, scaledMs } from "@herald/plugin-sdk/testing";
import { type ChildBaseConfig, openChild, waitUntil } from "./childHarness.ts";

/** What the parent hands the child (JSON in argv[2]). */
export type LiveCrashChildConfig = ChildBaseConfig & {
  phase: "stream" | "rerun";
  target: MessageTarget;
  /** The session's idempotency key. */
  key: string;
  /** Preview texts, in order. */
  previews: string[];
  final: string;
  /** `fresh`: the final is a new message and the previews are deleted (`staleAfterMs: 0`). */
  finalize: "fresh" | "in_place";
};

const { config, adapter, store } = await openChild<LiveCrashChildConfig>();
const runtime = createMessageRuntime({
  store,
  adapters: [{ accountId: config.accountId, adapter }],
  random: () => 0.5,
  delivery: {
    // Stable across restarts: recovery takes the dead incarnation's sessions at once.
    workerId: "contract-live",
    // The live session's lease, renewed every third of it; scaled by the time knob: an event
    // loop held longer than the lease on a busy machine let this process's own recovery take
    // its session mid-stream (the child then was not killed where the test armed it).
    leaseMs: scaledMs(2_000),
    pollIntervalMs: 10,
    backoff: { baseMs: 20, maxMs: 100, maxAttempts: 10 },
  },
  live: { recoveryIntervalMs: 30 },
});
await runtime.start();

const live = await runtime.live(
  { channel: adapter.id, accountId: config.accountId, target: config.target },
  {
    idempotencyKey: config.key,
    typing: false,
    ...(config.finalize === "fresh" ? { staleAfterMs: 0 } : {}),
  },
);
for (const text of config.previews) {
  live.update(text);
  await new Promise((resolve) => setTimeout(resolve, 30));
  await live.idle();
}
await live.finalize(config.final).catch((error: unknown) => {
  console.error(`finalize failed: ${(error as Error).message}`);
});

if (config.phase === "rerun") {
  const settled = await waitUntil(async () => {
    const open = await store.listIntents({
      statuses: ["pending", "sending", "committing", "unknown_after_send"],
      limit: 1_000,
    });
    return open.every((i) => isHeldForOperator(i));
  }, 15_000);
  if (!settled) {
    console.error("rerun: live sessions or finals still unfinished after 15 s");
    process.exit(2);
  }
}
await runtime.stop(1_000);
await store.close();
process.exit(0);
