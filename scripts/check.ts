/**
 * `pnpm check`: everything CI runs, in order, failing fast —
 * format + lint, typecheck, build, all tests, package checks (publint, attw), packaging (every
 * package installed outside the repo with npm and pnpm), API reports, boundaries.
 */
import { spawnSync } from "node:child_process";

const steps: Array<[string, string[]]> = [
  ["format + lint (biome)", ["biome", "check", "."]],
  [
    "typecheck + build (turbo)",
    ["turbo", "run", "typecheck", "build", "--output-logs=errors-only"],
  ],
  ["typecheck scripts", ["tsc", "-p", "scripts/tsconfig.json"]],
  ["tests (vitest, all projects)", ["vitest", "run"]],
  [
    "package checks (publint, attw)",
    ["turbo", "run", "check:package", "--output-logs=errors-only"],
  ],
  [
    "packaging (pack, install from a local registry with npm and pnpm, a new user's bot)",
    ["node", "scripts/check-packaging.ts"],
  ],
  [
    "API reports (api-extractor; update: pnpm --filter @herald/plugin-sdk api:update)",
    ["turbo", "run", "api:check", "--output-logs=errors-only"],
  ],
  ["dependency boundaries", ["node", "scripts/check-boundaries.ts"]],
];

const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" };
const started = Date.now();
for (const [title, [cmd, ...args]] of steps) {
  const t0 = Date.now();
  console.log(`\n▶ ${title}`);
  const bin = cmd === "node" ? process.execPath : "pnpm";
  const argv = cmd === "node" ? args : ["exec", cmd as string, ...args];
  const r = spawnSync(bin, argv, { stdio: "inherit", env });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`\n✗ ${title} failed after ${secs}s`);
    process.exit(r.status ?? 1);
  }
  console.log(`✓ ${title} (${secs}s)`);
}
console.log(`\n✓ pnpm check passed in ${((Date.now() - started) / 1000).toFixed(1)}s`);
