/**
 * Child process of the contract suite's crash tests: rebuilds the adapter from the harness
 * module, runs a real runtime on a SQLite file against the parent's fake platform, and either
 * sends (`produce`, expected to die on an armed failpoint) or recovers and delivers until
 * nothing is left in flight (`drain`, exits 0).
 *
 * Usage: `node [--conditions=herald-source] crashChild.ts '<json ChildConfig>'`
 *
 * @module
 */
import type { ChannelMessage, MessageTarget } from "@herald/plugin-sdk/channel-message";
import {
  createMessageRuntime,
  isHeldForOperator,
  SqliteStateStore,
  scaledMs,
} from "@herald/plugin-sdk/testing";
import type { ContractHarness, ContractHarnessModule, JsonValue } from "./types.ts";

/** What the parent hands the child (JSON in argv[2]). */
export type CrashChildConfig = {
  module: ContractHarnessModule;
  connection: JsonValue;
  storePath: string;
  phase: "produce" | "drain";
  target: MessageTarget;
  texts: string[];
  keyPrefix: string;
  accountId: string;
  /** Added to the runtime's clock, in ms (a restart long after the crash). @defaultValue 0 */
  clockOffsetMs?: number;
};

const config = JSON.parse(process.argv[2] ?? "{}") as CrashChildConfig;
const mod = (await import(config.module.url)) as Record<string, unknown>;
const exported = mod[config.module.exportName ?? "contractHarness"];
const harness = (
  typeof exported === "function" ? await exported(config.module.args) : exported
) as ContractHarness;
if (!harness?.createAdapter) throw new Error(`${config.module.url} exports no contract harness`);

const adapter = harness.createAdapter(config.connection);
const store = new SqliteStateStore({ path: config.storePath });
const offset = config.clockOffsetMs ?? 0;
const runtime = createMessageRuntime({
  store,
  adapters: [adapter],
  ...(offset ? { clock: () => Date.now() + offset } : {}),
  random: () => 0.5,
  delivery: {
    workerId: "contract-crash",
    // Scaled by the time knob: a lease must outlast an event loop held on a busy machine.
    leaseMs: scaledMs(2_000),
    pollIntervalMs: 10,
    recoveryBudgetMs: 5_000,
    backoff: { baseMs: 20, maxMs: 100, maxAttempts: 10 },
  },
  live: { recoveryIntervalMs: 0 },
});
await runtime.start();

if (config.phase === "produce") {
  for (const [i, text] of config.texts.entries()) {
    const message: ChannelMessage = {
      id: `${config.keyPrefix}-${i}`,
      channel: adapter.id,
      accountId: config.accountId,
      direction: "outbound",
      target: config.target,
      body: { markdown: text },
    };
    await runtime
      .send(message, { idempotencyKey: `${config.keyPrefix}-${i}`, waitMs: 10_000 })
      .catch(() => {});
  }
} else {
  const deadline = Date.now() + scaledMs(15_000);
  for (;;) {
    const open = await store.listIntents({
      statuses: ["pending", "sending", "committing", "unknown_after_send"],
      limit: 1_000,
    });
    if (open.every((i) => isHeldForOperator(i))) break;
    if (Date.now() > deadline) {
      console.error(
        `drain timed out: ${JSON.stringify(open.map((i) => [i.idempotencyKey, i.status]))}`,
      );
      process.exit(2);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
await runtime.stop(1_000);
await store.close();
process.exit(0);
