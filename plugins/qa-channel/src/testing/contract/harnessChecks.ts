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

/**
 * The assertion message of a rate-limit test whose wait was not honoured: with `retryAfter` left
 * at its default (`"both"`) on a platform that sends the wait in one place only, the test for the
 * other place fails — this says which harness setting to change.
 */
export const retryAfterMissed = (harness: ContractHarness, via: "header" | "body") => {
  const other = via === "body" ? "header" : "body";
  const where = via === "body" ? "error body" : "Retry-After header";
  const only = other === "header" ? "the Retry-After header" : "its error body";
  return (
    `the adapter did not read a retry-after from the ${where} (retryAfter: ` +
    `${JSON.stringify(harness.retryAfter ?? "both")}); if your platform sends it only in ${only}, ` +
    `set \`retryAfter: "${other}"\` in the contract harness`
  );
};

/** The skip reason of a rate-limit test whose wait sits where the platform puts none. */
export const retryAfterSkip = (harness: ContractHarness, via: "header" | "body") =>
  `the platform announces a 429's wait in its ${harness.retryAfter} only (retryAfter), not its ${via}`;
