/**
 * `describeChannelContract`: registers the whole contract suite for one harness (see the
 * package docs in `index.ts`).
 *
 * @module
 */
import { scaledMs } from "@herald/plugin-sdk/testing";
import { afterAll, describe } from "vitest";
import { boundsTests } from "./boundsTests.ts";
import { classifyTests } from "./classifyTests.ts";
import { crashTests } from "./crashTests.ts";
import { deliveryTests } from "./deliveryTests.ts";
import { featureCrashTests } from "./featureCrashTests.ts";
import { featureTests } from "./featureTests.ts";
import { inboundTests } from "./inboundTests.ts";
import { liveTests } from "./liveTests.ts";
import { pluginLoadTests } from "./pluginLoadTests.ts";
import { registerContract } from "./registry.ts";
import { replyTests } from "./replyTests.ts";
import { sendTests } from "./sendTests.ts";
import {
  CONTRACT_AREAS,
  type ContractArea,
  type ContractHarness,
  type ContractOptions,
  type JsonValue,
} from "./types.ts";

/**
 * Registers the contract suite for one channel adapter, under
 * `describe("channel contract: <name>")`. Call it at the top level of a test file. Tests that
 * need a capability the harness or adapter lacks are reported as skipped with the reason.
 *
 * @param harness - the channel's harness (its `./testing` export `contractHarness`).
 * @param options - a subset of areas, a title variant, the per-test timeout.
 * @throws TypeError when `options.areas` names an unknown area, or `options.only` an unknown
 *   test id (at collection).
 */
export function describeChannelContract<TConnection extends JsonValue>(
  harness: ContractHarness<TConnection>,
  options: ContractOptions = {},
): void {
  for (const area of options.areas ?? []) {
    if (!CONTRACT_AREAS.includes(area)) {
      throw new TypeError(`unknown contract area "${area}" (known: ${CONTRACT_AREAS.join(", ")})`);
    }
  }
  const areas = new Set<ContractArea>(options.areas ?? CONTRACT_AREAS);
  const h = harness as unknown as ContractHarness;
  const title = `channel contract: ${harness.name}${options.variant ? ` (${options.variant})` : ""}`;
  // Scaled by the suite's time knob (HERALD_TEST_TIME_SCALE): the tests' own retry-afters are.
  const timeoutMs = scaledMs(options.timeoutMs ?? 20_000);
  describe(title, { timeout: timeoutMs }, () => {
    // Vitest's default reporter shows no skip reason for a passing file: print them here.
    const skipped: Array<{ testId: string; reason: string }> = [];
    let ran = 0;
    afterAll(() => {
      if (options.expect === "failure" || skipped.length === 0) return;
      console.log(
        `${title}: ${ran - skipped.length} tests ran, ${skipped.length} skipped:\n` +
          skipped.map((s) => `  skipped ${s.testId}: ${s.reason}`).join("\n"),
      );
    });
    registerContract(
      h,
      {
        areas,
        ...(options.only ? { only: options.only } : {}),
        ...(options.expect ? { expect: options.expect } : {}),
        ...(options.onKill ? { onKill: options.onKill } : {}),
        onSkip: (skip) => {
          skipped.push(skip);
          options.onSkip?.(skip);
        },
        onRun: () => {
          ran += 1;
        },
      },
      (suite) => {
        sendTests(suite);
        replyTests(suite);
        deliveryTests(suite);
        boundsTests(suite);
        crashTests(suite);
        inboundTests(suite);
        liveTests(suite);
        classifyTests(suite);
        pluginLoadTests(suite);
        featureTests(suite);
        featureCrashTests(suite);
      },
      timeoutMs,
    );
  });
}
