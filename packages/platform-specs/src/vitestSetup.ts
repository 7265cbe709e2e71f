/**
 * Vitest setup file of the plugin suites: every exchange of a fake platform server is checked
 * against the platform's vendored description, and a test whose fake traffic diverged fails in
 * its `afterEach`, naming the operation and field path. With `HERALD_SPEC_STATS=<file>` set,
 * each test file appends its counts (validations, operations covered) to that file as JSON lines.
 *
 * @module
 */
import { appendFileSync } from "node:fs";
import {
  formatFakeTrafficViolation,
  setFakeTrafficCheck,
  takeFakeTrafficViolations,
} from "@herald/plugin-sdk/testing";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { registerSpecChecks } from "./index.ts";
import { description, loadedDescriptions, PLATFORMS, platformOfFile } from "./platforms.ts";

registerSpecChecks();

function failOnViolations(): void {
  const found = takeFakeTrafficViolations();
  if (found.length === 0) return;
  throw new Error(
    `the fake's traffic diverges from the platform's published description (fix the fake, or ` +
      `allow-list the gap with its reason in packages/platform-specs/src/allowList.ts):\n` +
      found.map((v) => `  ${formatFakeTrafficViolation(v)}`).join("\n"),
  );
}

// Load (and compile the hot validators of) the file's platform before its tests run, so no
// test's time budget pays for it.
beforeAll(async () => {
  const platform = platformOfFile(expect.getState().testPath ?? "");
  if (platform) await description(platform);
}, 120_000);

afterEach(failOnViolations);
afterAll(async () => {
  // The registry lives on globalThis, which a worker keeps for the next file (maybe another
  // project's): leave no check behind.
  for (const platform of PLATFORMS) setFakeTrafficCheck(platform, undefined);
  failOnViolations();
  const file = process.env.HERALD_SPEC_STATS;
  if (!file) return;
  for (const d of await loadedDescriptions()) {
    const { platform, validations, covered } = d;
    appendFileSync(file, `${JSON.stringify({ platform, validations, covered: [...covered] })}\n`);
  }
});
