/**
 * Child process of the `features` crash tests ([H23]): rebuilds the adapter from the harness
 * module, runs a runtime on a SQLite file against the parent's fake platform, and either
 * produces (a reply with files and a caption, or a reaction; expected to die on an armed
 * failpoint) or drains (recovers and delivers until nothing is in flight; exits 0).
 *
 * Usage: `node [--conditions=herald-source] featureCrashChild.ts '<json FeatureCrashConfig>'`
 *
 * @module
 */
import type { MessageAttachment, MessageTarget } from "@herald/plugin-sdk/channel-message";
import {
  createMessageRuntime,
  isHeldForOperator,
  SqliteStateStore,
  scaledMs,
} from "@herald/plugin-sdk/testing";
import type { ContractHarness, ContractHarnessModule, JsonValue } from "./types.ts";

/** What the parent hands the child (JSON in argv[2]). */
export type FeatureCrashConfig = {
  module: ContractHarnessModule;
  connection: JsonValue;
  storePath: string;
  phase: "produce" | "drain";
  target: MessageTarget;
  accountId: string;
  /** `files`: a reply with `attachments` and `caption`; `reaction`: 👍 on `messageId`. */
  job:
    | { kind: "files"; attachments: MessageAttachment[]; caption: string }
    | { kind: "reaction"; messageId: string };
};

const config = JSON.parse(process.argv[2] ?? "{}") as FeatureCrashConfig;
const mod = (await import(config.module.url)) as Record<string, unknown>;
const exported = mod[config.module.exportName ?? "contractHarness"];
const harness = (
  typeof exported === "function" ? await exported(config.module.args) : exported
) as ContractHarness;
const adapter = harness.createAdapter(config.connection);
const store = new SqliteStateStore({ path: config.storePath });
const runtime = createMessageRuntime({
  store,
  adapters: [adapter],
  random: () => 0.5,
  delivery: {
    workerId: "feature-crash",
    leaseMs: 2_000,
    pollIntervalMs: 10,
    recoveryBudgetMs: 5_000,
    backoff: { baseMs: 20, maxMs: 100, maxAttempts: 10 },
  },
  live: { recoveryIntervalMs: 0 },
});
await runtime.start();

if (config.phase === "produce") {
  const { job } = config;
  if (job.kind === "files") {
    await runtime
      .send(
        {
          id: "files-reply",
          channel: adapter.id,
          accountId: config.accountId,
          direction: "outbound",
          target: config.target,
          body: { markdown: job.caption },
          attachments: job.attachments,
        },
        { idempotencyKey: "files-reply", waitMs: 10_000 },
      )
      .catch(() => {});
  } else {
    await runtime
      .react({
        channel: adapter.id,
        accountId: config.accountId,
        target: config.target,
        messageId: job.messageId,
        emoji: "👍",
        idempotencyKey: "reaction-1",
        waitMs: 10_000,
      })
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
