import { once } from "node:events";
import { createServer } from "node:net";
import {
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
} from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { createSlackClient } from "./client.ts";
import { classifyError, SlackRenderError } from "./errors.ts";
import { FAKE_BOT, FakeSlack } from "./testing/index.ts";

const platform = (error: string) => new WebAPIPlatformError({ ok: false, error });

describe("classifyError", () => {
  it.each([
    ["ratelimited", "rate_limit"],
    ["msg_too_long", "invalid_payload"],
    ["channel_not_found", "not_found"],
    ["not_in_channel", "permission"],
    ["is_archived", "permission"],
    ["message_not_found", "not_found"],
    ["cant_update_message", "permission"],
    ["invalid_auth", "auth"],
    ["token_revoked", "auth"],
    ["missing_scope", "permission"],
    ["invalid_blocks", "invalid_payload"],
    ["restricted_action_read_only_channel", "permission"],
    ["duplicate_message_not_found", "conflict"],
  ])("platform error %s is %s and not dispatched", (code, kind) => {
    const failure = classifyError(platform(code));
    expect(failure).toMatchObject({ kind, evidence: "not_dispatched", platformCode: code });
  });

  it("internal_error and fatal_error may have posted part of the message: maybe_sent", () => {
    for (const code of ["internal_error", "fatal_error"]) {
      expect(classifyError(platform(code))).toMatchObject({
        kind: "transient",
        evidence: "maybe_sent",
      });
    }
  });

  it("C06: a 429 with Retry-After: 3 is a rate limit of 3000 ms that pauses the channel", () => {
    expect(classifyError(new WebAPIRateLimitedError(3))).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      retryAfterMs: 3_000,
      rateLimitScope: "chat",
    });
  });

  it("C06 variant: HTTP 200 with ok:false ratelimited is a rate limit without a wait (backoff)", () => {
    const failure = classifyError(platform("ratelimited"));
    expect(failure).toMatchObject({ kind: "rate_limit", evidence: "not_dispatched" });
    expect(failure.retryAfterMs).toBeUndefined();
  });

  it("an HTTP 5xx may have been applied; an HTTP 4xx with an ok:false body is classified by its code", () => {
    expect(
      classifyError(new WebAPIHTTPError(503, "Service Unavailable", {}, "oops")),
    ).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    const body = JSON.stringify({ ok: false, error: "not_in_channel" });
    expect(classifyError(new WebAPIHTTPError(403, "Forbidden", {}, body))).toMatchObject({
      kind: "permission",
      evidence: "not_dispatched",
      platformCode: "not_in_channel",
    });
    expect(classifyError(new WebAPIHTTPError(409, "Conflict", {}, "{}"))).toMatchObject({
      kind: "conflict",
      evidence: "not_dispatched",
    });
  });

  it("an unknown platform code is unknown but not dispatched (Slack refused it)", () => {
    expect(classifyError(platform("something_new"))).toMatchObject({
      kind: "unknown",
      evidence: "not_dispatched",
    });
  });

  it("network errors carry dispatch evidence: refused is not dispatched, a reset may be sent", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(
      classifyError(new WebAPIRequestError(new TypeError("fetch failed", { cause: refused }))),
    ).toMatchObject({ kind: "transient", evidence: "not_dispatched" });
    expect(
      classifyError(new WebAPIRequestError(new TypeError("fetch failed", { cause: reset }))),
    ).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
  });

  it("a render error is invalid_payload; anything else unknown and maybe_sent", () => {
    expect(classifyError(new SlackRenderError("nothing"))).toMatchObject({
      kind: "invalid_payload",
      evidence: "not_dispatched",
    });
    expect(classifyError(new Error("boom"))).toMatchObject({
      kind: "unknown",
      evidence: "maybe_sent",
    });
  });

  it("redacts the secrets it is given", () => {
    const failure = classifyError(new Error(`failed with ${FAKE_BOT.token}`), [FAKE_BOT.token]);
    expect(failure.message).not.toContain(FAKE_BOT.token);
  });
});

describe("the real WebClient against the fake", () => {
  let fake: FakeSlack | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it("an ok:false body is a failure whatever the HTTP status", async () => {
    fake = await FakeSlack.start();
    const client = createSlackClient({ token: FAKE_BOT.token, slackApiUrl: fake.apiUrl });
    const error = await client.chat
      .postMessage({ channel: "CNOPE", text: "x" })
      .catch((e: unknown) => e);
    expect(classifyError(error)).toMatchObject({
      kind: "not_found",
      platformCode: "channel_not_found",
    });
  });

  it("a 429 without Retry-After is a rate limit (backoff), not an untyped error", async () => {
    fake = await FakeSlack.start();
    const channel = fake.createChannel();
    fake.failNext({ kind: "status", status: 429, code: "rate_limited" }, { op: "send" });
    const client = createSlackClient({ token: FAKE_BOT.token, slackApiUrl: fake.apiUrl });
    const error = await client.chat
      .postMessage({ channel: channel.id, text: "x" })
      .catch((e: unknown) => e);
    const failure = classifyError(error);
    expect(failure).toMatchObject({ kind: "rate_limit", evidence: "not_dispatched" });
    expect(failure.retryAfterMs).toBeUndefined();
    expect(fake.messages(channel.id)).toEqual([]);
  });

  it("a request that times out is maybe_sent; a refused connection is not dispatched", async () => {
    fake = await FakeSlack.start();
    const channel = fake.createChannel();
    fake.failNext({ kind: "delay", delayMs: 600 }, { op: "send" });
    const slow = createSlackClient({
      token: FAKE_BOT.token,
      slackApiUrl: fake.apiUrl,
      timeoutMs: 200,
    });
    const timedOut = await slow.chat
      .postMessage({ channel: channel.id, text: "slow" })
      .catch((e: unknown) => e);
    expect(classifyError(timedOut)).toMatchObject({ kind: "transient", evidence: "maybe_sent" });

    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const port = (server.address() as { port: number }).port;
    await new Promise((r) => server.close(r));
    const closed = createSlackClient({
      token: FAKE_BOT.token,
      slackApiUrl: `http://127.0.0.1:${port}/api/`,
    });
    const refused = await closed.auth.test().catch((e: unknown) => e);
    expect(classifyError(refused)).toMatchObject({ kind: "transient", evidence: "not_dispatched" });
  });
});
