import { defineConfig } from "vitest/config";

/** One Vitest run over every workspace package; each package's own config is a project. */
export default defineConfig({
  test: {
    projects: ["packages/*", "plugins/*", "examples/*", "scripts"],
    // Vitest's default on a 2-core machine is 1 worker (cores − 1), which runs every file in
    // series although much of their time is spent waiting (fake platforms, child processes,
    // retry-after waits). Two workers ran all 227 files in 12.8 min on the 2-core CI machine
    // (15.6 min of CPU). `VITEST_MAX_WORKERS` overrides it.
    maxWorkers: 2,
  },
});
