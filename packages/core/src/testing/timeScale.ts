/**
 * One knob for every time limit of the test suite: `HERALD_TEST_TIME_SCALE`. On a busy machine
 * (several suites at once on two cores) everything takes longer; a limit that holds on an idle
 * machine then fails with no defect behind it. Every test timeout, hook timeout, child-process
 * limit and `eventually` wait is multiplied by this scale. Limits are upper bounds only: a
 * larger scale never makes a passing test slower, it only waits longer before calling a hang.
 *
 * @module
 */
import { availableParallelism, loadavg } from "node:os";

/** The environment variable that sets the scale explicitly (a number ≥ 1, e.g. `4`). */
export const TEST_TIME_SCALE_ENV = "HERALD_TEST_TIME_SCALE";

/**
 * The factor every test time limit is multiplied by.
 *
 * An explicit `HERALD_TEST_TIME_SCALE` wins (a positive number; values below 1 are kept, so
 * `0.5` tightens limits to find slow tests). Otherwise it is the machine's load per core —
 * `os.loadavg()[0] / cores` — and at least 1: 1 on an idle machine, 6 with a load of 12 on two
 * cores. Read on every call, so a long run follows the machine's load.
 *
 * @param env - the environment to read. @defaultValue process.env
 * @throws Error naming `HERALD_TEST_TIME_SCALE` when it is set to something that is not a
 *   positive number.
 */
export function testTimeScale(env: NodeJS.ProcessEnv = process.env): number {
  const explicit = env[TEST_TIME_SCALE_ENV]?.trim();
  if (explicit) {
    const value = Number(explicit);
    if (!Number.isFinite(value) || value <= 0) {
      throw new Error(`${TEST_TIME_SCALE_ENV} must be a positive number, got "${explicit}"`);
    }
    return value;
  }
  const [oneMinute = 0] = loadavg();
  return Math.max(1, oneMinute / Math.max(1, availableParallelism()));
}

/**
 * `ms` multiplied by {@link testTimeScale}, rounded up: the limit to give a test, hook, child
 * process or wait that needs `ms` on an idle machine.
 *
 * @example it("survives a restart", async () => { … }, scaledMs(60_000));
 */
export function scaledMs(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  return Math.ceil(ms * testTimeScale(env));
}
