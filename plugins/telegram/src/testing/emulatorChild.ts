/**
 * Child process of the emulator restart test (`emulator.test.ts`): the real adapter and polling
 * receiver on a SQLite file against the parent's `telegram-test-api` emulator. The handler
 * replies to every message with the idempotency key of its inbound (as a turn's reply does);
 * the parent arms the `send.after_commit` failpoint in phase `first`, so the process dies
 * mid-handler, right after the reply was committed. Phase `restart` runs until a handler has
 * replied, then stops cleanly. Each handler run appends `handler <text> recovered=<bool>` and
 * `replied` to `logPath`.
 *
 * Usage: `node --conditions=herald-source emulatorChild.ts '<json>'`
 *
 * @module
 */
import { appendFileSync, readFileSync } from "node:fs";
import { openTestRun } from "@herald/plugin-sdk/testing";
import { createTelegramAdapter, createTelegramReceiver } from "../index.ts";
import { testConfig } from "./harness.ts";

/** What the parent hands the child (JSON in argv[2]). */
export type EmulatorChildConfig = {
  apiRoot: string;
  token: string;
  storePath: string;
  logPath: string;
  phase: "first" | "restart";
};

const c = JSON.parse(process.argv[2] ?? "{}") as EmulatorChildConfig;
const config = testConfig(
  { apiRoot: c.apiRoot, token: c.token, unknownSendPolicy: "hold", reconcile: "off" },
  {
    receive: {
      mode: "polling",
      pollTimeoutSeconds: 1,
      emptyPollGapMs: 100,
      pinnedPollIntervalMs: 50,
      retryDelayMs: 50,
    },
  },
);
const adapter = createTelegramAdapter(config, c.token);
const run = await openTestRun({
  adapters: [adapter],
  accountId: "main",
  storePath: c.storePath,
  // Stable across restarts: the restarted process takes back its own dedupe leases at once.
  receive: { instanceId: "emulator-1" },
  handler: async (ctx) => {
    const text = ctx.input.body?.markdown ?? "";
    appendFileSync(c.logPath, `handler ${text} recovered=${ctx.recovered}\n`);
    await run.runtime.send(run.message(adapter.id, ctx.input.target, `answer to ${text}`), {
      idempotencyKey: `reply:${ctx.id}`,
    });
    appendFileSync(c.logPath, "replied\n");
  },
});
const receiver = createTelegramReceiver(config, c.token, run.sink(adapter.id));
await receiver.start?.();

const deadline = Date.now() + 15_000;
const replied = () => readFileSync(c.logPath, "utf8").includes("replied");
while (!(c.phase === "restart" && replied())) {
  if (Date.now() > deadline) {
    console.error(`emulator child ${c.phase}: no reply within 15 s`);
    process.exit(2);
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await receiver.stop?.();
await run.close();
process.exit(0);
