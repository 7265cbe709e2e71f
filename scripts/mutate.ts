/**
 * `pnpm mutate <package> [glob…]`: mutation testing with StrykerJS (`@stryker-mutator/core` and
 * its Vitest runner) on one workspace package — outside `pnpm check`, it is slow. Every mutant
 * (a small change to the product code: a flipped condition, a removed call, a changed constant)
 * runs the tests that cover it; a mutant no test fails "survived" — a missing test, or an
 * equivalent change to explain (docs/testing.md).
 *
 *   pnpm mutate plugin-telegram                         # src/** of the package (tests, testing/ excluded)
 *   pnpm mutate core 'src/send/*.ts' --tests 'src/send/*.test.ts'   # one area, against some tests
 *   HERALD_MUTATE_CONCURRENCY=2 pnpm mutate slack       # more test runners at once (default 1)
 *
 * Without `--tests`, each mutant runs the package's tests that import its file (Vitest's
 * `related`), after a first run of all of them (a large package's whole suite: slow). With
 * `--tests`, only those test files run (a Vitest config next to the package's, removed after).
 *
 * How it drives this repo: Stryker runs in the package's directory with that package's Vitest
 * project config (its `herald-source` resolution, setup file and time limits), mutates the files
 * in place (`inPlace`: a pnpm workspace's per-package node_modules do not survive Stryker's
 * sandbox copy; Stryker restores every file when it ends or is interrupted), and runs in
 * incremental mode: the results of the last run (`reports/mutation/<package>.json`, git-ignored)
 * are reused for unchanged code and tests. Reports: `reports/mutation/<package>.html`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const [name, ...rest] = process.argv.slice(2);
const split = rest.indexOf("--tests");
const globs = split === -1 ? rest : rest.slice(0, split);
const tests = split === -1 ? [] : rest.slice(split + 1);
if (!name || name === "--help" || name === "-h") {
  console.error("usage: pnpm mutate <package: core | plugin-sdk | plugin-<name> | …> [glob…]");
  process.exit(name ? 0 : 2);
}

/** `core` → packages/core, `plugin-telegram` / `telegram` → plugins/telegram. */
function packageDir(pkg: string): string {
  const bare = pkg.replace(/^@herald\//, "").replace(/^plugin-(?!sdk$)/, "");
  for (const dir of [`packages/${bare}`, `plugins/${bare}`, `examples/${bare}`]) {
    if (existsSync(join(root, dir, "vitest.config.ts"))) return join(root, dir);
  }
  throw new Error(`mutate: no workspace package "${pkg}" with a vitest.config.ts`);
}

const dir = packageDir(name);
const slug = relative(root, dir).replaceAll("/", "-");
const reports = join(root, "reports", "mutation");
mkdirSync(reports, { recursive: true });

const mutate = globs.length > 0 ? globs : ["src/**/*.ts"];
const config = {
  $schema: "../../node_modules/@stryker-mutator/core/schema/stryker-schema.json",
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest:
    tests.length > 0
      ? { configFile: "vitest.mutate.config.ts", related: false }
      : { configFile: "vitest.config.ts", related: true },
  // Product code only: tests, fakes (`testing/`) and type-only files are not mutated.
  mutate: [
    ...mutate,
    "!src/**/*.test.ts",
    "!src/**/testing/**",
    "!src/**/*.d.ts",
    "!src/**/index.ts",
  ],
  inPlace: true,
  // Vitest strips types without checking them: no `// @ts-nocheck` needs to be written into
  // every file of the package (in place, only the mutated files change).
  disableTypeChecks: false,
  incremental: true,
  incrementalFile: join(reports, `${slug}.incremental.json`),
  coverageAnalysis: "perTest",
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by this script, not a turbo task
  concurrency: Number(process.env.HERALD_MUTATE_CONCURRENCY ?? 1),
  // A mutant that makes a test hang is "timed out" (killed) after its normal time plus this.
  timeoutMS: 30_000,
  timeoutFactor: 2,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: join(reports, `${slug}.html`) },
  jsonReporter: { fileName: join(reports, `${slug}.json`) },
  // The first run of the tests on a busy machine takes long.
  dryRunTimeoutMinutes: 60,
  // In this checkout (`.cache` may be a link shared by several worktrees: one run's cleanup
  // would remove another's files).
  tempDirName: join(reports, `.stryker-tmp-${slug}`),
  cleanTempDir: "always",
};
const configFile = join(reports, `${slug}.stryker.config.json`);
writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);

const testsConfig = join(dir, "vitest.mutate.config.ts");
if (tests.length > 0) {
  writeFileSync(
    testsConfig,
    `// Written by scripts/mutate.ts for one run; removed after it.
import base from "./vitest.config.ts";
export default { ...base, test: { ...base.test, include: ${JSON.stringify(tests)} } };
`,
  );
}

console.log(
  `mutate: ${relative(root, dir)} — ${mutate.join(" ")} (config ${relative(root, configFile)})`,
);
const r = spawnSync(
  process.execPath,
  [join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", configFile],
  { cwd: dir, stdio: "inherit", env: { ...process.env, FORCE_COLOR: "1" } },
);
if (tests.length > 0) rmSync(testsConfig, { force: true });
process.exit(r.status ?? 1);
