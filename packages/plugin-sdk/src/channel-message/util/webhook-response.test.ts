import { describe, expect, it } from "vitest";
import { ackToResponse } from "./webhook-response.ts";

describe("ackToResponse", () => {
  it("answers accept with 200 and a JSON body", async () => {
    const res = ackToResponse({ kind: "accept" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({});
    expect(
      await ackToResponse({ kind: "accept" }, { acceptBody: { challenge: "c" } }).json(),
    ).toEqual({
      challenge: "c",
    });
  });

  it("answers retry with 503 and Retry-After in whole seconds, rounded up", () => {
    const res = ackToResponse({ kind: "retry", reason: "store_unavailable", retryAfterMs: 2_100 });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("3");
    const fallback = ackToResponse(
      { kind: "retry", reason: "failed" },
      { defaultRetryAfterMs: 5_000 },
    );
    expect(fallback.headers.get("retry-after")).toBe("5");
  });

  it("refuses a manual ack, which has no answer of its own", () => {
    expect(() => ackToResponse({ kind: "manual" })).toThrow(TypeError);
  });
});
