/**
 * Runs before every test file of every project (`sharedTest.setupFiles` in vitest.shared.ts).
 *
 * - Time limits follow the machine's load file by file: the run's limits were scaled when it
 *   started; a file that starts while the machine got busier gets longer ones.
 * - After the file, every child process and server it registered (`trackChild`,
 *   `trackCloser`; `runNodeChild` and the fake platform servers register themselves) is ended,
 *   also when a test timed out and never reached its own cleanup — so a timed-out test cannot
 *   leave processes that keep Vitest from exiting.
 * - A worker runs file after file in one process (`isolate: false`): after each file the
 *   environment variables are put back as they were before it, and the failpoints are read
 *   again, so no file sees what another one armed or set.
 */
import { afterAll, vi } from "vitest";
import { resetFailpoints } from "./packages/core/src/failpoint.ts";
import { endTracked } from "./packages/core/src/testing/teardown.ts";
import { scaledMs } from "./packages/core/src/testing/timeScale.ts";
import { IDLE_TEST_TIMEOUT_MS } from "./vitest.shared.ts";

vi.setConfig({
  testTimeout: scaledMs(IDLE_TEST_TIMEOUT_MS),
  hookTimeout: scaledMs(IDLE_TEST_TIMEOUT_MS),
});

const envBefore = { ...process.env };

afterAll(async () => {
  await endTracked(scaledMs(5_000));
  for (const key of Object.keys(process.env)) {
    if (!(key in envBefore)) delete process.env[key];
  }
  for (const [key, value] of Object.entries(envBefore)) {
    if (process.env[key] !== value) process.env[key] = value;
  }
  resetFailpoints();
});
