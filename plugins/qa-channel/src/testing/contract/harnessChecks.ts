/**
 * What the suite reads from a harness's declarations (issue [H27] item 4): the secrets it must
 * search for (required — a harness written from the docs must not silently skip the secrets
 * test) and where its platform announces a 429's wait.
 *
 * @module
 */
import type { ContractHarness } from "./types.ts";

/**
 * The harness's non-empty secrets.
 * @throws Error naming what to add when the harness declares no `secrets` at all.
 */
export function declaredSecrets(harness: ContractHarness): string[] {
  if (harness.secrets === undefined) {
    throw new Error(
      `${harness.name}: the harness declares no secrets. Add \`secrets: [<bot token>, <webhook secret>, …]\` ` +
        "to your contractHarness — every credential your adapter and receiver hold, the one the adapter's " +
        "own calls carry first — or `secrets: []` if the channel has none.",
    );
  }
  return harness.secrets.filter((s) => s !== "");
}

/** Whether the harness's platform announces a 429's wait in `via` (header or body). */
export function announcesRetryAfter(harness: ContractHarness, via: "header" | "body"): boolean {
  const declared = harness.retryAfter ?? "both";
  return declared === "both" || declared === via;
}

/** The skip reason of a rate-limit test whose wait sits where the platform puts none. */
export const retryAfterSkip = (harness: ContractHarness, via: "header" | "body") =>
  `the platform announces a 429's wait in its ${harness.retryAfter} only (retryAfter), not its ${via}`;
