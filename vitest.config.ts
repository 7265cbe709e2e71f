import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./vitest.sequencer.ts";

// Vitest's default on a 2-core machine is 1 worker (cores − 1), which runs every file in series
// although most of their time is spent waiting (fake platforms, child processes, retry-after
// waits): a plugin project's files kept the two cores about 15 % busy with 2 workers. Four
// workers on two cores overlap those waits. The file-based projects below do not inherit a root
// `maxWorkers` (each resolves the default: with `maxWorkers: 2` here, all 227 files still ran
// one at a time), but every project reads `VITEST_MAX_WORKERS`. Set it to override.
process.env.VITEST_MAX_WORKERS ??= "4";

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
