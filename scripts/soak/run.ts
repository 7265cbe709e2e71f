/**
 * `pnpm soak` ([H20]; not in CI): the 2,000-update / 200-connection webhook burst against a
 * real `herald start` process and the Telegram fake, with 10 % faulty sends and 8 random
 * SIGKILLs, then 1,000 randomized SIGKILL runs of core's send path (its crash suite,
 * `packages/core/src/delivery/crash.test.ts`). Prints a Markdown table ready to paste: per
 * message answered / duplicated / held (by cause) / failed / lost, handler runs, webhook ack
 * latency, and how long `/livez` and readiness took after each restart — each against its goal.
 *
 * The gateway runs the built CLI (`packages/gateway/dist/cli/main.mjs`, what operators run from
 * the published package): `pnpm build` runs first (turbo; cached when nothing changed).
 *
 * Faulty sends (`SOAK_FAULT_RATE` of the sends, spread over the run), in Telegram's shapes
 * (PLATFORMS.md §3a, §3c): half are a 429 with `retry_after` (flood control: `not_dispatched`,
 * retried after the wait); a quarter a 500 answer with nothing stored (`maybe_sent`: grammY
 * cannot tell, the `probe` reconciler can only prove "sent", so the reply is held for an
 * operator under Telegram's `hold` policy — counted as held by an answer, not lost); a quarter a
 * reset after the platform stored the message (`maybe_sent`; the probe needs an earlier message
 * of this bot in the chat and these chats have none, so it is held too, though the user sees
 * it — never posted twice). Held messages are split by cause: a kill (in `sending` when it hit)
 * or a faulty answer.
 *
 * Knobs (environment):
 * - `SOAK_UPDATES` (2000), `SOAK_CONNECTIONS` (200), `SOAK_KILLS` (8), `SOAK_FAULT_RATE` (0.1);
 * - `SOAK_CONCURRENCY` (16): the gateway's `delivery.concurrency` (held by kills ≤ kills × it);
 * - `SOAK_CLI` (`dist`; `source` runs the TypeScript sources, no build), `SOAK_BUILD=0` skips
 *   the build;
 * - `SOAK_CRASH_RUNS` (1000; 0 skips them), `SOAK_CRASH_PARALLEL` (crash runs at once, 4);
 * - `SOAK_BURST=0` skips the burst; `SOAK_SEED` (20) seeds kill points and faults.
 *
 * @example
 * pnpm soak
 * SOAK_UPDATES=1000 SOAK_KILLS=2 SOAK_CRASH_RUNS=100 pnpm soak   # a smaller run
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { runWebhookBurst } from "../lib/load/webhookBurst.ts";
import { burstTable } from "./table.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const updates = num("SOAK_UPDATES", 2_000);
const connections = num("SOAK_CONNECTIONS", 200);
const kills = num("SOAK_KILLS", 8);
const faultRate = num("SOAK_FAULT_RATE", 0.1);
const concurrency = num("SOAK_CONCURRENCY", 16);
const crashRuns = num("SOAK_CRASH_RUNS", 1_000);
const crashParallel = num("SOAK_CRASH_PARALLEL", 4);
const burst = num("SOAK_BURST", 1) !== 0;
const cli = process.env.SOAK_CLI === "source" ? "source" : "dist";
const root = fileURLToPath(new URL("../..", import.meta.url));

let seed = num("SOAK_SEED", 20);
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

if (burst && cli === "dist" && num("SOAK_BUILD", 1) !== 0) {
  console.log("pnpm build (the gateway runs the built CLI; SOAK_BUILD=0 skips this)");
  const build = spawnSync("pnpm", ["build", "--output-logs=errors-only"], {
    cwd: root,
    stdio: "inherit",
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

if (burst) {
  console.log(
    `webhook burst: ${updates} updates, ${connections} connections, ${kills} SIGKILLs, ${faultRate * 100} % faulty sends, ${cli} CLI`,
  );
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(1))
      .join(" ");
  const before = load();
  const started = Date.now();
  const report = await runWebhookBurst({
    updates,
    connections,
    kills,
    faultRate,
    concurrency,
    cli,
    random,
    settleTimeoutMs: 300_000,
    log: (line) => console.log(`  ${line}`),
  });
  console.log(
    `\n${burstTable(report, { connections, concurrency, cli, seconds: Math.round((Date.now() - started) / 1000), load: `load average ${before} → ${load()}` })}\n`,
  );
  console.log(`  held by reason: ${JSON.stringify(report.heldReasons)}`);
  console.log(`  intents: ${JSON.stringify(report.intents)}`);
}

if (crashRuns > 0) {
  console.log(
    `send path: ${crashRuns} randomized SIGKILL runs (+ ${Math.round(crashRuns / 5)} late-store runs), ${crashParallel} at once (core crash suite)`,
  );
  const started = Date.now();
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
  console.log(
    `  crash runs: ${run.status === 0 ? "passed" : "FAILED"} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  if (run.status !== 0) process.exitCode = 1;
}
