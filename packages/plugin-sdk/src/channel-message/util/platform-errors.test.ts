import { describe, expect, it } from "vitest";
import { classifyPlatformError } from "./api-error.ts";
import { platformErrors } from "./platform-errors.ts";

const { ApiError, NetworkError } = platformErrors("Acme", {
  code: "HERALD_ACME",
  platform: "the Acme API",
});

describe("platformErrors", () => {
  it("names an API error after the platform code and classifies it by status", () => {
    const e = new ApiError("POST /v1/messages", {
      status: 429,
      platformCode: "rate_limited",
      retryAfterMs: 1_500,
    });
    expect(e.name).toBe("AcmeApiError[rate_limited]");
    expect(e.code).toBe("HERALD_ACME_API");
    expect(e.message).toBe("POST /v1/messages: the Acme API answered 429 rate_limited");
    expect(classifyPlatformError(e)).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      retryAfterMs: 1_500,
    });
  });

  it("names a network error after its reason, with the evidence of the cause", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const e = new NetworkError("GET /v1/me", new TypeError("fetch failed", { cause: refused }));
    expect(e.name).toBe("AcmeNetworkError[refused]");
    expect(e.code).toBe("HERALD_ACME_NETWORK");
    expect(e.cause).toBeInstanceOf(TypeError);
    expect(classifyPlatformError(e)).toMatchObject({
      kind: "transient",
      evidence: "not_dispatched",
    });
  });

  it("refuses a name that is not an identifier and a code that is not UPPER_SNAKE", () => {
    expect(() => platformErrors("Ac me", { code: "HERALD_ACME", platform: "x" })).toThrow(
      /name must be an identifier, got "Ac me"/,
    );
    expect(() => platformErrors("Acme", { code: "herald-acme", platform: "x" })).toThrow(
      /code must be UPPER_SNAKE, got "herald-acme"/,
    );
  });

  it("without options: code HERALD_<NAME> and platform `the <name> API`", () => {
    const { ApiError: Api, NetworkError: Net } = platformErrors("HttpChat");
    const e = new Api("GET /v1/me", { status: 401, platformCode: "invalid_token" });
    expect(e.name).toBe("HttpChatApiError[invalid_token]");
    expect(e.code).toBe("HERALD_HTTPCHAT_API");
    expect(e.message).toBe("GET /v1/me: the HttpChat API answered 401 invalid_token");
    expect(new Net("GET /v1/me", new Error("x")).code).toBe("HERALD_HTTPCHAT_NETWORK");
  });
});
