/**
 * `classifyError` over what the real `@googleapis/chat` client throws against the fake: each
 * AIP-193 status, 429 without Retry-After (C37), a RetryInfo wait, network refusals and resets,
 * and the access token redacted from every message.
 */
import type { PlatformFault } from "@herald/plugin-sdk/testing";
import { OAuth2Client } from "google-auth-library";
import { afterEach, describe, expect, it } from "vitest";
import { accessTokenCredentials } from "./auth.ts";
import { type ChatApi, createChatApi } from "./client.ts";
import { classifyError, GoogleChatApiError, GoogleChatNetworkError } from "./errors.ts";
import { FAKE_ACCESS_TOKEN, FakeGoogleChat } from "./testing/FakeGoogleChat.ts";

let fake: FakeGoogleChat | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(): Promise<{ fake: FakeGoogleChat; api: ChatApi; space: string }> {
  fake = await FakeGoogleChat.start();
  const api = createChatApi({
    rootUrl: fake.rootUrl,
    auth: accessTokenCredentials(FAKE_ACCESS_TOKEN).auth,
    timeoutMs: 1_000,
  });
  return { fake, api, space: fake.createSpace().name };
}

async function failureOf(fault: PlatformFault) {
  const { fake, api, space } = await setup();
  fake.faults.failNext(fault, { op: "send" });
  const error = await api
    .create({ parent: space, requestId: "r", messageId: "client-x", requestBody: { text: "hi" } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  return { error, failure: classifyError(error, [FAKE_ACCESS_TOKEN]) };
}

describe("classifyError", () => {
  for (const [status, kind, grpc] of [
    [400, "invalid_payload", "INVALID_ARGUMENT"],
    [401, "auth", "UNAUTHENTICATED"],
    [403, "permission", "PERMISSION_DENIED"],
    [404, "not_found", "NOT_FOUND"],
    [409, "conflict", "ALREADY_EXISTS"],
  ] as const) {
    it(`${status} ${grpc} is ${kind}, not_dispatched`, async () => {
      const { error, failure } = await failureOf({ kind: "status", status, description: "no" });
      expect(error).toBeInstanceOf(GoogleChatApiError);
      expect((error as Error).name).toBe(`GoogleChatApiError[${grpc}]`);
      expect(failure).toMatchObject({ kind, evidence: "not_dispatched", platformCode: grpc });
    });
  }

  it("5xx is transient, maybe_sent", async () => {
    const { failure } = await failureOf({ kind: "status", status: 503, description: "down" });
    expect(failure).toMatchObject({
      kind: "transient",
      evidence: "maybe_sent",
      platformCode: "UNAVAILABLE",
    });
  });

  it("C37: 429 RESOURCE_EXHAUSTED without Retry-After is a rate_limit without a wait, pausing the space", async () => {
    const { failure } = await failureOf({
      kind: "status",
      status: 429,
      description: "Resource has been exhausted",
    });
    expect(failure).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      platformCode: "RESOURCE_EXHAUSTED",
      rateLimitScope: "chat",
    });
    expect(failure.retryAfterMs).toBeUndefined();
  });

  it("a per-project quota 429 pauses the whole account", async () => {
    const { failure } = await failureOf({
      kind: "status",
      status: 429,
      description:
        "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per project'",
    });
    expect(failure).toMatchObject({ kind: "rate_limit", rateLimitScope: "account" });
  });

  it("a RetryInfo detail is honoured, in ms", async () => {
    const { failure } = await failureOf({ kind: "rate_limit", retryAfterMs: 1_500, via: "body" });
    expect(failure.retryAfterMs).toBe(1_500);
  });

  it("a refused connection is not_dispatched; a reset after accept is maybe_sent", async () => {
    const { fake, api, space } = await setup();
    const body = {
      parent: space,
      requestId: "r",
      messageId: "client-x",
      requestBody: { text: "hi" },
    };
    fake.faults.failNext({ kind: "reset_after_accept" }, { op: "send" });
    const reset = await api.create(body).catch((e: unknown) => e);
    expect(reset).toBeInstanceOf(GoogleChatNetworkError);
    expect(classifyError(reset)).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    const resume = await fake.faults.refuseConnections();
    const refused = await api.create(body).catch((e: unknown) => e);
    await resume();
    expect(classifyError(refused)).toMatchObject({
      kind: "transient",
      evidence: "not_dispatched",
      platformCode: "refused",
    });
  });

  it("a timeout is maybe_sent", async () => {
    const { fake, api, space } = await setup();
    fake.faults.failNext({ kind: "delay", delayMs: 2_000 }, { op: "send" });
    const error = await api
      .create({ parent: space, requestId: "r", messageId: "client-x", requestBody: { text: "hi" } })
      .catch((e: unknown) => e);
    expect(classifyError(error)).toMatchObject({
      kind: "transient",
      evidence: "maybe_sent",
      platformCode: "timeout",
    });
  });

  it("redacts the access token from messages that echo it", async () => {
    const { failure } = await failureOf({
      kind: "status",
      status: 401,
      description: `invalid credentials: ${FAKE_ACCESS_TOKEN}`,
    });
    expect(failure.message).not.toContain(FAKE_ACCESS_TOKEN);
    expect(failure.message).toContain("[redacted]");
  });

  it("gaxios retries are off: a 503 on GET or DELETE (which gaxios retries by default) is one call", async () => {
    const { fake, api, space } = await setup();
    const created = await api.create({
      parent: space,
      requestId: "r",
      messageId: "client-x",
      requestBody: { text: "hi" },
    });
    fake.faults.failNext({ kind: "status", status: 503 }, { op: "read" });
    fake.faults.failNext({ kind: "status", status: 503 }, { op: "delete" });
    await expect(api.get(String(created.name))).rejects.toBeInstanceOf(GoogleChatApiError);
    await expect(api.delete(String(created.name))).rejects.toBeInstanceOf(GoogleChatApiError);
    expect(fake.server.calls.map((c) => `${c.op} ${c.outcome}`)).toEqual([
      "send ok 200",
      "read status 503",
      "delete status 503",
    ]);
  });

  it("the token endpoint refusing the credentials (invalid_grant: a revoked key, a skewed clock) is auth, never invalid_payload", async () => {
    const { fake, space } = await setup();
    const grant = "a-signed-assertion-or-refresh-token-Xy12";
    fake.server.app.post("/token", (c) =>
      c.json({ error: "invalid_grant", error_description: "Invalid JWT Signature." }, 400),
    );
    const auth = new OAuth2Client({ endpoints: { oauth2TokenUrl: `${fake.server.url}/token` } });
    auth.setCredentials({ refresh_token: grant, access_token: "expired", expiry_date: 1 });
    const api = createChatApi({ rootUrl: fake.rootUrl, auth, timeoutMs: 1_000 });
    const error = await api
      .create({ parent: space, requestId: "r", messageId: "client-x", requestBody: { text: "hi" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GoogleChatApiError);
    const failure = classifyError(error, [grant]);
    expect(failure).toMatchObject({ kind: "auth", evidence: "not_dispatched" });
    expect(failure.message).toContain("invalid_grant");
    expect(failure.message).toContain("Invalid JWT Signature.");
    expect(JSON.stringify(error)).not.toContain(grant);
    expect(fake.server.calls.filter((c) => c.op === "send")).toEqual([]); // never sent
  });

  it("anything else is unknown, maybe_sent", () => {
    expect(classifyError(new Error("boom"))).toMatchObject({
      kind: "unknown",
      evidence: "maybe_sent",
    });
  });
});
