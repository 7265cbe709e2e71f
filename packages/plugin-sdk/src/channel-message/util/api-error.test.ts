import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  classifyHttpAnswer,
  classifyPlatformError,
  HTTP_STATUS_KINDS,
  PlatformApiError,
} from "./api-error.ts";
import { networkFailureOf, PlatformNetworkError } from "./network.ts";

class AcmeApiError extends PlatformApiError {
  constructor(call: string, answer: ConstructorParameters<typeof PlatformApiError>[3]) {
    super("HERALD_ACME_API", "the Acme API", call, answer);
  }
}
class AcmeNetworkError extends PlatformNetworkError {
  constructor(call: string, cause: unknown) {
    super("HERALD_ACME_NETWORK", "the Acme API", call, networkFailureOf(cause), { cause });
  }
}

describe("PlatformApiError", () => {
  it("names the platform code and keeps what classification needs", () => {
    const e = new AcmeApiError("POST /messages", {
      status: 429,
      platformCode: "slow_down",
      retryAfterMs: 1_500,
      description: "too many",
    });
    expect(e.name).toBe("AcmeApiError[slow_down]");
    expect(e.message).toBe("POST /messages: the Acme API answered 429 slow_down: too many");
    expect([e.code, e.status, e.retryAfterMs]).toEqual(["HERALD_ACME_API", 429, 1_500]);
    expect(new AcmeApiError("GET /me", { status: 502 }).platformCode).toBe("http_502");
  });
});

describe("classifyHttpAnswer", () => {
  const at = (status: number, extra = {}) => classifyHttpAnswer({ status, message: "m", ...extra });
  it("a 429 is a rate limit with its wait, not dispatched", () => {
    expect(at(429, { retryAfterMs: 2_000, platformCode: "rate_limited" })).toEqual({
      kind: "rate_limit",
      evidence: "not_dispatched",
      retryAfterMs: 2_000,
      message: "m",
      platformCode: "rate_limited",
    });
    expect(at(429)).not.toHaveProperty("retryAfterMs"); // no wait named: core backs off
    expect(
      classifyHttpAnswer({ status: 429, message: "m" }, { rateLimitScope: "chat" }).rateLimitScope,
    ).toBe("chat");
  });

  it("a 5xx may have been stored (maybe_sent); every 4xx was refused (not_dispatched)", () => {
    for (const status of [500, 502, 503, 504])
      expect(at(status)).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    expect(at(401).kind).toBe("auth");
    expect(at(403).kind).toBe("permission");
    expect(at(404).kind).toBe("not_found");
    expect(at(409).kind).toBe("conflict");
    expect(at(408)).toMatchObject({ kind: "transient", evidence: "not_dispatched" });
    for (const status of [400, 413, 418, 422])
      expect(at(status)).toMatchObject({ kind: "invalid_payload", evidence: "not_dispatched" });
    expect(Object.keys(HTTP_STATUS_KINDS)).toContain("413");
  });

  it("takes a platform's own meanings and redacts the message", () => {
    const c = classifyHttpAnswer(
      { status: 404, message: "GET /bot123456:secret/getMe" },
      { kinds: { 404: "auth" }, redact: (t) => t.replace("123456:secret", "[redacted]") },
    );
    expect(c).toEqual({
      kind: "auth",
      evidence: "not_dispatched",
      message: "GET /bot[redacted]/getMe",
    });
  });
});

describe("classifyPlatformError", () => {
  it("classifies a refused connection, an error answer and anything else", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await new Promise((resolve) => server.close(resolve));
    const refused = await fetch(url).catch(
      (e: unknown) => new AcmeNetworkError("POST /messages", e),
    );
    expect(classifyPlatformError(refused)).toMatchObject({
      kind: "transient",
      evidence: "not_dispatched",
      platformCode: "refused",
    });
    expect(
      classifyPlatformError(new AcmeApiError("POST /messages", { status: 403 })),
    ).toMatchObject({ kind: "permission", evidence: "not_dispatched", platformCode: "http_403" });
    expect(classifyPlatformError(new TypeError("boom"))).toEqual({
      kind: "unknown",
      evidence: "maybe_sent",
      message: "boom",
    });
  });
});
