// heraldOriginOf: only the origin herald writes is believed; foreign or malformed metadata is
// not an origin (and never an error).
import { gatewayFailureOrigin } from "@herald/core";
import { describe, expect, it } from "vitest";
import { heraldOriginOf } from "./herald-origin.ts";

describe("heraldOriginOf", () => {
  it("reads back the origin herald writes", () => {
    const origin = gatewayFailureOrigin("missing_api_key");
    expect(heraldOriginOf(JSON.parse(JSON.stringify(origin)))).toEqual(origin);
  });

  it.each([
    ["nothing", undefined],
    ["another source", { source: "user" }],
    ["a newer version", { ...gatewayFailureOrigin("missing_api_key"), schemaVersion: 2 }],
    ["an unknown code", { ...gatewayFailureOrigin("missing_api_key"), code: "x" }],
    ["a string", "herald"],
  ])("answers undefined for %s", (_what, value) => {
    expect(heraldOriginOf(value)).toBeUndefined();
  });
});
