/**
 * `pnpm soak` ([H20]; not in CI): the 2,000-update / 200-connection webhook burst against a
 * real `herald start` process and the Telegram fake, with 10 % faulty sends and 8 random
 * SIGKILLs, then 1,000 randomized SIGKILL runs of core's send path (its crash suite,
 * `packages/core/src/delivery/crash.test.ts`). Prints lost / duplicated / held / handler runs
 * per message, webhook ack p99, and how long `/livez` took to answer after each restart.
 *
 * Sizes: `SOAK_UPDATES` (2000), `SOAK_CONNECTIONS` (200), `SOAK_KILLS` (8), `SOAK_FAULT_RATE`
 * (0.1), `SOAK_CRASH_RUNS` (1000; 0 skips them), `SOAK_CRASH_PARALLEL` (crash runs at once, 4),
 * `SOAK_BURST=0` skips the burst.
 *
 * @example
 * pnpm soak
 * SOAK_UPDATES=600 SOAK_CRASH_RUNS=100 pnpm soak   # a smaller run
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runWebhookBurst } from "../lib/load/webhookBurst.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const updates = num("SOAK_UPDATES", 2_000);
const connections = num("SOAK_CONNECTIONS", 200);
const kills = num("SOAK_KILLS", 8);
const faultRate = num("SOAK_FAULT_RATE", 0.1);
const crashRuns = num("SOAK_CRASH_RUNS", 1_000);
const crashParallel = num("SOAK_CRASH_PARALLEL", 4);
const burst = num("SOAK_BURST", 1) !== 0;

let seed = 20;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

if (burst) {
  console.log(
    `webhook burst: ${updates} updates, ${connections} connections, ${kills} SIGKILLs, ${faultRate * 100} % faulty sends`,
  );
  const report = await runWebhookBurst({
    updates,
    connections,
    kills,
    faultRate,
    random,
    settleTimeoutMs: 300_000,
    log: (line) => console.log(`  ${line}`),
  });
  console.log(
    [
      `  lost ${report.lost} · duplicated ${report.duplicated} · held ${report.held}, left in \`sending\` by the kills ${report.sendingAtKill.reduce((a, b) => a + b, 0)} (${report.sendingAtKill.join("+")}; goal ≤ ${report.kills} kills × concurrency 16), ${report.heldNeverSent} never sent`,
      `  handler runs per message: ${JSON.stringify(report.handlerRuns)} · interrupted by a kill before the reply was durable ${report.interruptedRuns} · run again after a durable reply ${report.extraRuns} (goal 0)`,
      `  webhook ack p50 ${report.ackP50Ms} ms · p99 ${report.ackP99Ms} ms (goal ≤ 500 ms)`,
      `  /livez after each restart (ms): ${report.livezAfterRestartMs.join(", ")} (goal ≤ 1000)`,
      `  held by reason: ${JSON.stringify(report.heldReasons)}`,
      `  intents: ${JSON.stringify(report.intents)}`,
    ].join("\n"),
  );
}

if (crashRuns > 0) {
  console.log(
    `send path: ${crashRuns} randomized SIGKILL runs (+ ${Math.round(crashRuns / 5)} late-store runs), ${crashParallel} at once (core crash suite)`,
  );
  const started = Date.now();
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const run = spawnSync(
    "pnpm",
    ["exec", "vitest", "run", "packages/core/src/delivery/crash.test.ts"],
    {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        HERALD_CRASH_RUNS: String(crashRuns),
        HERALD_CRASH_PARALLEL: String(crashParallel),
      },
    },
  );
  console.log(`  crash runs took ${Math.round((Date.now() - started) / 1000)} s`);
  if (run.status !== 0) process.exitCode = 1;
}
