/**
 * `@herald/platform-specs` (private, test data): the platforms' published API descriptions,
 * vendored under `vendor/`, and the traffic check that holds herald's fake platform servers to
 * them. `registerSpecChecks()` installs the check for every platform; the Vitest setup
 * (`@herald/platform-specs/vitest-setup`) does that and fails a test whose fake traffic diverged.
 *
 * @packageDocumentation
 */
import { type FakeTrafficViolation, setFakeTrafficCheck } from "@herald/plugin-sdk/testing";
import { isAllowed } from "./allowList.ts";
import { description, PLATFORMS, type Platform } from "./platforms.ts";

export { ALLOW_LIST, type AllowEntry, allowListOf, isAllowed } from "./allowList.ts";
export { discoveryToOpenApi } from "./discovery.ts";
export { type MatchedOperation, OpenApiDescription, type OpenApiOptions } from "./openapi.ts";
export { description, PLATFORMS, type Platform } from "./platforms.ts";

/** Registers, for every platform, the check against its vendored description. */
export function registerSpecChecks(): void {
  for (const platform of PLATFORMS) {
    setFakeTrafficCheck(platform, async (exchange): Promise<FakeTrafficViolation[]> => {
      const found = await (await description(platform as Platform)).check(exchange);
      return found.filter((v) => !isAllowed(v));
    });
  }
}
