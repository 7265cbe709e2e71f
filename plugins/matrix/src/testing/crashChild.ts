/**
 * Child process of the Matrix crash tests (`crash.test.ts`): the real adapter and a herald
 * runtime on a SQLite file, against the parent's fake homeserver. `produce` sends one message
 * (the parent arms a failpoint that SIGKILLs it); `drain` recovers and delivers until nothing is
 * in flight, then exits 0.
 *
 * Usage: `node --conditions=herald-source crashChild.ts '<json CrashChildConfig>'`
 *
 * @module
 */
import type { ChannelMessage } from "@herald/plugin-sdk/channel-message";
import {
  createMessageRuntime,
  isHeldForOperator,
  SqliteStateStore,
} from "@herald/plugin-sdk/testing";
import { createMatrixAdapter } from "../index.ts";
import { type MatrixConnection, testConfig } from "./harness.ts";

/** What the parent hands the child (JSON in argv[2]). */
export type CrashChildConfig = {
  connection: MatrixConnection;
  /** Merged into the adapter config (e.g. `{ homeserver: { kind: "dendrite" } }`). */
  config: Record<string, unknown>;
  storePath: string;
  phase: "produce" | "drain";
  roomId: string;
  text: string;
  key: string;
};

const input = JSON.parse(process.argv[2] ?? "{}") as CrashChildConfig;
const c = input.connection;
const adapter = createMatrixAdapter(testConfig(c, input.config), c.accessToken, {
  userId: c.userId,
  deviceId: c.deviceId,
});
const store = new SqliteStateStore({ path: input.storePath });
const runtime = createMessageRuntime({
  store,
  adapters: [{ accountId: "main", adapter }],
  random: () => 0.5,
  delivery: {
    workerId: "matrix-crash",
    leaseMs: 2_000,
    pollIntervalMs: 10,
    recoveryBudgetMs: 5_000,
    backoff: { baseMs: 20, maxMs: 100, maxAttempts: 10 },
  },
  live: { recoveryIntervalMs: 0 },
});
await runtime.start();

if (input.phase === "produce") {
  const message: ChannelMessage = {
    id: input.key,
    channel: adapter.id,
    accountId: "main",
    direction: "outbound",
    target: { kind: "group", id: input.roomId },
    body: { markdown: input.text },
  };
  await runtime.send(message, { idempotencyKey: input.key, waitMs: 10_000 }).catch(() => {});
} else {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const open = await store.listIntents({
      statuses: ["pending", "sending", "committing", "unknown_after_send"],
      limit: 100,
    });
    if (open.every((i) => isHeldForOperator(i))) break;
    if (Date.now() > deadline) {
      console.error(`drain timed out: ${JSON.stringify(open.map((i) => [i.status, i.failure]))}`);
      process.exit(2);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
await runtime.stop(1_000);
await store.close();
process.exit(0);
