/**
 * `pnpm check`: everything CI runs, in order, failing fast —
 * format + lint, typecheck, build, all tests, package checks (publint, attw), packaging (every
 * package installed outside the repo with npm and pnpm), API reports, boundaries.
 *
 * The steps after the tests only read the build and do not depend on each other: they run at
 * the same time (packaging spends most of its time in npm / pnpm installs and child processes,
 * which leaves a core idle), each one's output printed as a block when it ends.
 */
import { spawn } from "node:child_process";

type Step = { title: string; argv: string[] };

/** Groups run in order; the steps of one group run at the same time. */
const groups: Step[][] = [
  [{ title: "format + lint (biome)", argv: ["biome", "check", "."] }],
  [
    {
      title: "typecheck + build (turbo)",
      argv: ["turbo", "run", "typecheck", "build", "--output-logs=errors-only"],
    },
  ],
  [{ title: "typecheck scripts", argv: ["tsc", "-p", "scripts/tsconfig.json"] }],
  [{ title: "tests (vitest, all projects)", argv: ["vitest", "run"] }],
  [
    {
      // `--only`: the build ran above; a second build task here would restore `dist/` from
      // turbo's cache while the packaging step packs it.
      title:
        "package checks (publint, attw) + API reports (api-extractor; update: pnpm --filter @herald/plugin-sdk api:update)",
      argv: ["turbo", "run", "check:package", "api:check", "--only", "--output-logs=errors-only"],
    },
    {
      title: "packaging (pack, install from a local registry with npm and pnpm, a new user's bot)",
      argv: ["node", "scripts/check-packaging.ts"],
    },
    { title: "dependency boundaries", argv: ["node", "scripts/check-boundaries.ts"] },
  ],
];

const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" };

type Outcome = { step: Step; code: number; secs: string; output: string };

/** Runs one step; alone it inherits the terminal, in a group its output is collected. */
function run(step: Step, alone: boolean): Promise<Outcome> {
  const [cmd, ...args] = step.argv;
  const bin = cmd === "node" ? process.execPath : "pnpm";
  const argv = cmd === "node" ? args : ["exec", cmd as string, ...args];
  const t0 = Date.now();
  if (alone) console.log(`\n▶ ${step.title}`);
  return new Promise((resolve) => {
    const child = spawn(bin, argv, { stdio: alone ? "inherit" : "pipe", env });
    let output = "";
    child.stdout?.on("data", (d) => {
      output += d;
    });
    child.stderr?.on("data", (d) => {
      output += d;
    });
    const done = (code: number) =>
      resolve({ step, code, secs: ((Date.now() - t0) / 1000).toFixed(1), output });
    child.on("error", (error) => {
      output += `${error.stack ?? error}\n`;
      done(1);
    });
    child.on("close", (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

const started = Date.now();
for (const group of groups) {
  const alone = group.length === 1;
  if (!alone) console.log(`\n▶ at the same time: ${group.map((s) => s.title).join("; ")}`);
  const outcomes = await Promise.all(
    group.map(async (step) => {
      const outcome = await run(step, alone);
      if (!alone) {
        console.log(`\n▶ ${step.title}`);
        process.stdout.write(outcome.output);
      }
      console.log(
        outcome.code === 0
          ? `✓ ${step.title} (${outcome.secs}s)`
          : `\n✗ ${step.title} failed after ${outcome.secs}s`,
      );
      return outcome;
    }),
  );
  const failed = outcomes.find((o) => o.code !== 0);
  if (failed) process.exit(failed.code);
}
console.log(`\n✓ pnpm check passed in ${((Date.now() - started) / 1000).toFixed(1)}s`);
