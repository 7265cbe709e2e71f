/**
 * `classifyError` over what the real matrix-js-sdk throws against the fake homeserver: each
 * errcode, a proxy's HTML 502, refused and reset connections (evidence), the token redacted.
 */
import { describe, expect, it } from "vitest";
import { MatrixHttp } from "./client.ts";
import { classifyError, MatrixApiError, MatrixNetworkError, MatrixRenderError } from "./errors.ts";
import { FAKE_BOT, FakeHomeserver } from "./testing/FakeHomeserver.ts";

async function failure(
  fake: FakeHomeserver,
  call: () => Promise<unknown>,
): Promise<ReturnType<typeof classifyError> & { error: unknown }> {
  try {
    await call();
  } catch (error) {
    return { ...classifyError(error, [FAKE_BOT.accessToken]), error };
  }
  throw new Error(`expected a failure from ${fake.url}`);
}

async function setup() {
  const fake = await FakeHomeserver.start();
  const http = new MatrixHttp({
    homeserverUrl: fake.url,
    accessToken: FAKE_BOT.accessToken,
    timeoutMs: 2_000,
  });
  const room = fake.createRoom();
  const send = () =>
    http.request(
      "PUT",
      `/rooms/${encodeURIComponent(room.id)}/send/m.room.message/t${Math.random()}`,
      "PUT send",
      {
        body: { msgtype: "m.text", body: "x" },
      },
    );
  return { fake, http, room, send };
}

describe("classifyError", () => {
  it.each([
    [403, "M_FORBIDDEN", "permission"],
    [404, "M_NOT_FOUND", "not_found"],
    [413, "M_TOO_LARGE", "invalid_payload"],
    [401, "M_UNKNOWN_TOKEN", "auth"],
    [401, "M_MISSING_TOKEN", "auth"],
    [400, "M_BAD_JSON", "invalid_payload"],
  ] as const)(
    "HTTP %i %s from the homeserver is %s, not dispatched, with the errcode",
    async (status, errcode, kind) => {
      const { fake, send } = await setup();
      fake.failNext(
        { kind: "status", status, code: errcode, description: `no: ${FAKE_BOT.accessToken}` },
        { op: "send" },
      );
      const f = await failure(fake, send);
      await fake.close();
      expect(f.error).toBeInstanceOf(MatrixApiError);
      expect((f.error as Error).name).toBe(`MatrixApiError[${errcode}]`);
      expect(f).toMatchObject({ kind, evidence: "not_dispatched", platformCode: errcode });
      expect(f.message).not.toContain(FAKE_BOT.accessToken);
    },
  );

  it("M_LIMIT_EXCEEDED: rate_limit per room, retry_after_ms in ms; a Retry-After header wins", async () => {
    const { fake, send } = await setup();
    fake.failNext({ kind: "rate_limit", retryAfterMs: 1_120, via: "body" }, { op: "send" });
    expect(await failure(fake, send)).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      retryAfterMs: 1_120,
      rateLimitScope: "chat",
      platformCode: "M_LIMIT_EXCEEDED",
    });
    fake.failNext({ kind: "rate_limit", retryAfterMs: 1_120, via: "both" }, { op: "send" });
    expect((await failure(fake, send)).retryAfterMs).toBe(2_000);
    await fake.close();
  });

  it.each([400, 403, 503])(
    "C45: M_LIMIT_EXCEEDED on HTTP %i (a proxy, an older server) is a rate limit with its wait; the Retry-After header wins over retry_after_ms (spec v1.10)",
    async (status) => {
      const { fake, send } = await setup();
      fake.failNext(
        { kind: "rate_limit", retryAfterMs: 1_120, via: "body", status },
        { op: "send" },
      );
      expect(await failure(fake, send)).toMatchObject({
        kind: "rate_limit",
        evidence: "not_dispatched",
        retryAfterMs: 1_120,
        platformCode: "M_LIMIT_EXCEEDED",
      });
      fake.failNext(
        { kind: "rate_limit", retryAfterMs: 1_120, via: "both", status },
        { op: "send" },
      );
      expect((await failure(fake, send)).retryAfterMs).toBe(2_000);
      await fake.close();
    },
  );

  it("5xx — Matrix JSON or a proxy's HTML page — is transient and maybe sent", async () => {
    const { fake, send } = await setup();
    fake.failNext({ kind: "status", status: 500, code: "M_UNKNOWN" }, { op: "send" });
    expect(await failure(fake, send)).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    fake.afterApply.push({
      status: 502,
      body: "<html>Bad Gateway</html>",
      contentType: "text/html",
    });
    const f = await failure(fake, send);
    expect(f).toMatchObject({
      kind: "transient",
      evidence: "maybe_sent",
      platformCode: "http_502",
    });
    await fake.close();
  });

  it("network: refused is not dispatched (ECONNREFUSED kept as evidence); a reset is maybe sent", async () => {
    const { fake, send } = await setup();
    fake.failNext({ kind: "reset_before_accept" }, { op: "send" });
    const reset = await failure(fake, send);
    expect(reset.error).toBeInstanceOf(MatrixNetworkError);
    expect(reset).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    const restore = await fake.faults.refuseConnections();
    const refused = await failure(fake, send);
    expect(refused).toMatchObject({ kind: "transient", evidence: "not_dispatched" });
    expect((refused.error as MatrixNetworkError).causeCode).toBe("ECONNREFUSED");
    await restore();
    await fake.close();
  });

  it("a client timeout is maybe sent, named a timeout", async () => {
    const fake = await FakeHomeserver.start();
    const http = new MatrixHttp({
      homeserverUrl: fake.url,
      accessToken: FAKE_BOT.accessToken,
      timeoutMs: 150,
    });
    fake.failNext({ kind: "delay", delayMs: 600 }, { op: "auth" });
    const f = await failure(fake, () => http.request("GET", "/account/whoami", "GET whoami"));
    expect(f).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    expect((f.error as MatrixNetworkError).reason).toBe("timeout");
    await fake.close();
  });

  it("render errors are invalid payloads; anything else is unknown and maybe sent", () => {
    expect(classifyError(new MatrixRenderError("nothing to send"))).toMatchObject({
      kind: "invalid_payload",
      evidence: "not_dispatched",
    });
    expect(classifyError(new Error("boom"))).toMatchObject({
      kind: "unknown",
      evidence: "maybe_sent",
    });
  });
});
