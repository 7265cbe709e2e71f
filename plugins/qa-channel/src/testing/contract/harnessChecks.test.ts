import { describe, expect, it } from "vitest";
import { qaHarness } from "../harness.ts";
import { announcesRetryAfter, declaredSecrets, retryAfterMissed } from "./harnessChecks.ts";

describe("harness declarations", () => {
  it("a harness without secrets fails the secrets test with what to add", () => {
    const { secrets: _, ...withoutSecrets } = qaHarness();
    expect(() => declaredSecrets(withoutSecrets)).toThrow(
      /declares no secrets\. Add `secrets: \[<bot token>, <webhook secret>, …\]`.*or `secrets: \[\]` if the channel has none/,
    );
    expect(declaredSecrets({ ...withoutSecrets, secrets: [] })).toEqual([]);
    expect(declaredSecrets({ ...withoutSecrets, secrets: ["t0k", ""] })).toEqual(["t0k"]);
  });

  it("runs the rate-limit tests only for where the platform announces the wait", () => {
    const h = qaHarness();
    expect(announcesRetryAfter(h, "body") && announcesRetryAfter(h, "header")).toBe(true);
    const headerOnly = { ...h, retryAfter: "header" as const };
    expect(announcesRetryAfter(headerOnly, "header")).toBe(true);
    expect(announcesRetryAfter(headerOnly, "body")).toBe(false);
  });

  it("a missed retry-after names the harness setting to change", () => {
    const h = qaHarness();
    expect(retryAfterMissed(h, "body")).toBe(
      'the adapter did not read a retry-after from the error body (retryAfter: "both"); if your ' +
        'platform sends it only in the Retry-After header, set `retryAfter: "header"` in the contract harness',
    );
    expect(retryAfterMissed(h, "header")).toMatch(
      /from the Retry-After header .*only in its error body, set `retryAfter: "body"`/,
    );
  });
});
