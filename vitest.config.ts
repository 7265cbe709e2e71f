import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./vitest.sequencer.ts";

// Vitest's default on a 2-core machine is 1 worker (cores − 1), which runs every file in series
// although most of their time is spent waiting (fake platforms, child processes, retry-after
// waits): a plugin project's files kept the two cores about 15 % busy with 2 workers. On an idle
// machine four workers on two cores overlap those waits. On a busy one (load per core ≥ 1.5 when
// the run starts: another suite, another `pnpm check`) more workers only add to the contention
// — four plugin projects took 187 s with 4 workers against 131 s with 2 at load 13-29 — so
// it takes 2. The file-based projects below do not inherit a root `maxWorkers`, but every
// project reads `VITEST_MAX_WORKERS`. Set it to override.
const busy = loadavg()[0] / availableParallelism() >= 1.5;
process.env.VITEST_MAX_WORKERS ??= busy ? "2" : "4";

/** One Vitest run over every workspace package; each package's own config is a project. */
export default defineConfig({
  test: {
    projects: ["packages/*", "plugins/*", "examples/*", "scripts"],
    sequence: { sequencer: LongestFirstSequencer },
    env: {
      // Node's compile cache (V8 code + stripped TypeScript, keyed by content) for the workers
      // and every process they start: the crash tests' children load the same few hundred
      // modules from source a few hundred times per run.
      NODE_COMPILE_CACHE:
        process.env.NODE_COMPILE_CACHE ??
        fileURLToPath(new URL("./node_modules/.cache/node-compile-cache", import.meta.url)),
    },
  },
});
