/**
 * Vitest settings shared by every workspace package: resolve workspace packages to their
 * sources (the `herald-source` export condition), so tests never run against a stale `dist/`;
 * time limits from the suite's one time knob (`HERALD_TEST_TIME_SCALE`, docs/testing.md); and
 * the setup file that ends every child process and server a test file left running.
 */
import { fileURLToPath } from "node:url";
import { scaledMs } from "./packages/core/src/testing/timeScale.ts";

// Vite's default server conditions, with ours first.
const conditions = ["herald-source", "module", "node", "development|production"];

/** Spread into `defineProject({ ...sourceResolution, test: { … } })`. */
export const sourceResolution = {
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["herald-source"] } },
};

/** A test's or hook's limit on an idle machine, in ms, before {@link scaledMs}. */
export const IDLE_TEST_TIMEOUT_MS = 30_000;

/**
 * Spread into every project's `test`: its time limits (scaled by the load when the run starts;
 * the setup file rescales them for each file), the setup file, and no per-file isolation.
 *
 * `isolate: false`: a worker process runs file after file and keeps the modules it loaded
 * (Vitest's default starts a new process per file and loads the workspace's sources again for
 * each — about half of a plugin project's CPU time went there, and the platform descriptions'
 * validators were compiled again in every file). The setup files still run for every file, so
 * each file still ends what it started (`endTracked`) and no fake-traffic check outlives it.
 * Test files must not leave state behind that another file could see (environment variables,
 * globals, module-level registries): restore what you change in an `afterAll`/`afterEach`.
 */
export const sharedTest = {
  isolate: false,
  testTimeout: scaledMs(IDLE_TEST_TIMEOUT_MS),
  hookTimeout: scaledMs(IDLE_TEST_TIMEOUT_MS),
  setupFiles: [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))],
};

/**
 * Spread into a plugin project's `test` instead of {@link sharedTest} (it includes it): every
 * request its fake platform servers receive and every answer they return is also checked against
 * the platform's published API description (`packages/platform-specs`), and a divergence fails
 * the test that caused it.
 */
export const fakeSpecChecks = {
  ...sharedTest,
  setupFiles: [
    ...sharedTest.setupFiles,
    fileURLToPath(new URL("./packages/platform-specs/src/vitestSetup.ts", import.meta.url)),
  ],
};
