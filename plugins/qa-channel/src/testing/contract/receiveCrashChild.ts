/**
 * Child process of the inbound crash tests: the harness's real receiver and a runtime on a
 * SQLite file, receiving from the parent's fake platform. The handler appends each message's
 * platform id to `logPath` (one per line), so the parent counts what was handled across
 * processes.
 *
 * - phase `first`: the first expected message is handled at once, the others take a minute (so
 *   a kill finds them unfinished); an armed failpoint kills the process first — exit 0 after
 *   the first was handled tells the parent the failpoint was never reached;
 * - phase `restart`: runs until every expected message was handled, then 300 ms more (a
 *   message handled twice shows up), and exits 0 (also when some never came: the parent says
 *   which).
 *
 * Usage: `node [--conditions=herald-source] receiveCrashChild.ts '<json ReceiveCrashChildConfig>'`
 *
 * @module
 */
import { appendFileSync, readFileSync } from "node:fs";
import { createMessageRuntime, createReceiverSink, scaledMs } from "@herald/plugin-sdk/testing";
import { type ChildBaseConfig, openChild, waitUntil } from "./childHarness.ts";

/** What the parent hands the child (JSON in argv[2]). */
export type ReceiveCrashChildConfig = ChildBaseConfig & {
  logPath: string;
  phase: "first" | "restart";
  /** Platform message ids the parent posted. */
  expect: string[];
};

const { config, harness, adapter, store } = await openChild<ReceiveCrashChildConfig>();
if (!harness.createReceiver) throw new Error(`${harness.name}: the harness has no createReceiver`);
const runtime = createMessageRuntime({
  store,
  adapters: [{ accountId: config.accountId, adapter }],
  random: () => 0.5,
  // The lease scales with the time knob: it must outlast an event loop held on a busy machine.
  delivery: { workerId: "contract-receive", pollIntervalMs: 10, leaseMs: scaledMs(2_000) },
  live: { recoveryIntervalMs: 0 },
  receive: {
    // Stable across restarts: the restarted process takes back its own leases at once.
    instanceId: "contract-receiver",
    loopGuard: false,
    handler: async (ctx) => {
      const id = ctx.input.platformMessageId ?? "";
      if (config.phase === "first" && id !== config.expect[0]) {
        await new Promise((resolve) => setTimeout(resolve, 60_000));
      }
      appendFileSync(config.logPath, `${id}\n`);
    },
  },
});
await runtime.start();
const receiver = harness.createReceiver(
  config.connection,
  createReceiverSink(runtime, { channel: adapter.id, accountId: config.accountId }),
);
await receiver.start?.();

const handled = () => new Set(readFileSync(config.logPath, "utf8").split("\n").filter(Boolean));
if (config.phase === "first") {
  // Reached only when no failpoint fired: give it a moment to fire after the first message.
  await waitUntil(async () => handled().has(config.expect[0] ?? ""), 10_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
} else {
  await waitUntil(async () => config.expect.every((id) => handled().has(id)), 10_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
}
// The first phase's slow handlers never finish: exit without waiting for them.
if (config.phase === "first") process.exit(0);
await receiver.stop?.();
await runtime.stop(1_000);
await store.close();
process.exit(0);
