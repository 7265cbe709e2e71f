/**
 * `pnpm check` (the gate) and `pnpm check:full` (`--full`: the same steps, the tests at their
 * soak-like sizes — `HERALD_TEST_FULL=1`, see docs/testing.md): everything CI runs, failing
 * fast — format + lint, typecheck, build, all tests, package checks (publint, attw), packaging
 * (every package installed outside the repo with npm and pnpm), API reports, boundaries.
 *
 * After format + lint, two lanes run at the same time: the tests (they run from sources and need
 * no build; their output is shown as it comes) and everything else, one step after another
 * (typecheck + build, then the steps that read the build). The tests spend much of their time
 * waiting (fake platforms, child processes, retry-after waits), which leaves a core for the other
 * lane. Each step of that lane prints its output as a block when it ends. The first step that
 * fails stops every other (fail fast).
 */
import { type ChildProcess, spawn } from "node:child_process";

type Step = { title: string; argv: string[] };
/** Steps run one after another. */
type Lane = Step[];

const tests: Step = { title: "tests (vitest, all projects)", argv: ["vitest", "run"] };

/** Stages run in order; the lanes of a stage at the same time (the first one's output live). */
const stages: Lane[][] = [
  [[{ title: "format + lint (biome)", argv: ["biome", "check", "."] }]],
  [
    [tests],
    [
      {
        title: "typecheck + build (turbo)",
        argv: ["turbo", "run", "typecheck", "build", "--output-logs=errors-only"],
      },
      { title: "typecheck scripts", argv: ["tsc", "-p", "scripts/tsconfig.json"] },
      { title: "dependency boundaries", argv: ["node", "scripts/check-boundaries.ts"] },
      {
        // `--only`: the build ran above; a second build task here would restore `dist/` from
        // turbo's cache while the packaging step packs it.
        title:
          "package checks (publint, attw) + API reports (api-extractor; update: pnpm --filter @herald/plugin-sdk api:update)",
        argv: ["turbo", "run", "check:package", "api:check", "--only", "--output-logs=errors-only"],
      },
      {
        title:
          "packaging (pack, install from a local registry with npm and pnpm, a new user's bot)",
        argv: ["node", "scripts/check-packaging.ts"],
      },
    ],
  ],
];

const full = process.argv.includes("--full");
const env = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  ...(full ? { HERALD_TEST_FULL: "1" } : {}),
};

type Outcome = { step: Step; code: number; secs: string; output: string };

/** Running children (each the leader of its process group), ended when a step fails. */
const running = new Set<ChildProcess>();

function stopAll(): void {
  for (const child of running) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}

/** Runs one step; `live` inherits the terminal, otherwise its output is collected. */
function run(step: Step, live: boolean): Promise<Outcome> {
  const [cmd, ...args] = step.argv;
  const bin = cmd === "node" ? process.execPath : "pnpm";
  const argv = cmd === "node" ? args : ["exec", cmd as string, ...args];
  const t0 = Date.now();
  if (live) console.log(`\n▶ ${step.title}`);
  return new Promise((resolve) => {
    // Its own process group, so a failure elsewhere can stop it with everything it started.
    const child = spawn(bin, argv, { stdio: live ? "inherit" : "pipe", env, detached: true });
    running.add(child);
    let output = "";
    child.stdout?.on("data", (d) => {
      output += d;
    });
    child.stderr?.on("data", (d) => {
      output += d;
    });
    const done = (code: number) => {
      running.delete(child);
      resolve({ step, code, secs: ((Date.now() - t0) / 1000).toFixed(1), output });
    };
    child.on("error", (error) => {
      output += `${error.stack ?? error}\n`;
      done(1);
    });
    child.on("close", (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

let failed: Outcome | undefined;

/** Runs a lane's steps in order; stops at its first failure or when another lane failed. */
async function runLane(lane: Lane, live: boolean): Promise<void> {
  for (const step of lane) {
    if (failed) return;
    const outcome = await run(step, live);
    if (!live) {
      console.log(`\n▶ ${step.title}`);
      process.stdout.write(outcome.output);
    }
    if (outcome.code === 0) {
      console.log(`✓ ${step.title} (${outcome.secs}s)`);
    } else if (!failed) {
      failed = outcome;
      console.log(`\n✗ ${step.title} failed after ${outcome.secs}s`);
      stopAll();
    }
  }
}

const started = Date.now();
for (const lanes of stages) {
  if (lanes.length > 1) {
    const names = lanes.map((lane) => lane.map((s) => s.title).join(" → "));
    console.log(`\n▶ at the same time: ${names.join("; ")}`);
  }
  await Promise.all(lanes.map((lane, i) => runLane(lane, i === 0)));
  if (failed) process.exit(failed.code || 1);
}
console.log(
  `\n✓ pnpm check${full ? ":full" : ""} passed in ${((Date.now() - started) / 1000).toFixed(1)}s`,
);
