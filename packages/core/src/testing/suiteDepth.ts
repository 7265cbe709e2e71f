/**
 * The suite's two depths: the gate (`pnpm check`, every guarantee proven once, deterministic
 * sets) and the full run (`pnpm check:full`, which sets `HERALD_TEST_FULL=1`: the soak-like
 * sizes — more randomized crash runs, more intents, more updates). A test that sizes a run by
 * {@link gateOrFull} proves the same properties at both depths; the full run only repeats them
 * more often.
 *
 * @module
 */

/** The environment variable `pnpm check:full` sets to `1`. */
export const FULL_SUITE_ENV = "HERALD_TEST_FULL";

/** True under `pnpm check:full` (`HERALD_TEST_FULL=1`). */
export function fullSuite(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[FULL_SUITE_ENV] === "1";
}

/**
 * `gate` in `pnpm check`, `full` in `pnpm check:full`.
 *
 * @example const RUNS = gateOrFull(48, 120); // every combination once in the gate
 */
export function gateOrFull<T>(gate: T, full: T, env: NodeJS.ProcessEnv = process.env): T {
  return fullSuite(env) ? full : gate;
}
