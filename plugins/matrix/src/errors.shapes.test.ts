/**
 * Rate-limit answers in their less common shapes, and the errcode table's edges ([H22] item 3),
 * through the real matrix-js-sdk against the fake homeserver: a wait only in the `Retry-After`
 * header (whole seconds, read as ms once), a proxy's non-JSON 429, `retry_after_ms` that is
 * negative or absent (herald backs off itself), an errcode on a 5xx, an unknown endpoint.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { MatrixHttp } from "./client.ts";
import {
  classifyError,
  MatrixApiError,
  MatrixEditNotShownError,
  MatrixEncryptedRoomError,
} from "./errors.ts";
import { FAKE_BOT, FakeHomeserver } from "./testing/FakeHomeserver.ts";

async function setup() {
  const fake = await FakeHomeserver.start();
  onTestFinished(() => fake.close());
  const http = new MatrixHttp({
    homeserverUrl: fake.url,
    accessToken: FAKE_BOT.accessToken,
    timeoutMs: 2_000,
  });
  const room = fake.createRoom();
  let n = 0;
  const failure = async () => {
    try {
      await http.request(
        "PUT",
        `/rooms/${encodeURIComponent(room.id)}/send/m.room.message/shape${++n}`,
        "PUT send",
        { body: { msgtype: "m.text", body: "x" } },
      );
    } catch (error) {
      return { ...classifyError(error), error };
    }
    throw new Error("the call did not fail");
  };
  return { fake, failure };
}

describe("C45 · rate limits in every shape", () => {
  it("only a Retry-After header (no retry_after_ms): its seconds, in ms", async () => {
    const { fake, failure } = await setup();
    fake.failNext({ kind: "rate_limit", retryAfterMs: 3_000, via: "header" }, { op: "send" });
    const f = await failure();
    expect(f).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      rateLimitScope: "chat",
      retryAfterMs: 3_000,
    });
  });

  it("a proxy's 429 that is not Matrix JSON: still a rate limit, its Retry-After kept", async () => {
    const { fake, failure } = await setup();
    fake.failNext(
      {
        kind: "status",
        status: 429,
        body: "<html>Too Many Requests</html>",
        headers: { "content-type": "text/html", "retry-after": "4" },
      },
      { op: "send" },
    );
    const f = await failure();
    expect(f.error).toBeInstanceOf(MatrixApiError);
    expect(f).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      platformCode: "http_429",
      retryAfterMs: 4_000,
    });
  });

  it("M_LIMIT_EXCEEDED with no wait anywhere, or a negative retry_after_ms: no retryAfterMs (herald backs off itself)", async () => {
    const { fake, failure } = await setup();
    for (const body of [
      { errcode: "M_LIMIT_EXCEEDED", error: "Too many requests" },
      { errcode: "M_LIMIT_EXCEEDED", error: "Too many requests", retry_after_ms: -5 },
    ]) {
      fake.failNext({ kind: "status", status: 429, body }, { op: "send" });
      const f = await failure();
      expect(f).toMatchObject({ kind: "rate_limit", evidence: "not_dispatched" });
      expect(f.retryAfterMs).toBeUndefined();
    }
  });

  it("a body wait with no header is taken in ms as it is (never × 1000)", async () => {
    const { fake, failure } = await setup();
    fake.failNext(
      {
        kind: "status",
        status: 429,
        body: { errcode: "M_LIMIT_EXCEEDED", error: "slow down", retry_after_ms: 750 },
      },
      { op: "send" },
    );
    expect((await failure()).retryAfterMs).toBe(750);
  });
});

describe("the errcode table's edges", () => {
  it("an errcode on a 5xx does not make it permanent: transient, maybe sent", async () => {
    const { fake, failure } = await setup();
    fake.failNext(
      { kind: "status", status: 500, body: { errcode: "M_FORBIDDEN", error: "internal" } },
      { op: "send" },
    );
    expect(await failure()).toMatchObject({
      kind: "transient",
      evidence: "maybe_sent",
      platformCode: "M_FORBIDDEN",
    });
  });

  it("M_UNRECOGNIZED (an endpoint the server lacks) is unknown, not dispatched; an unknown errcode goes by its status", async () => {
    const { fake, failure } = await setup();
    fake.failNext(
      { kind: "status", status: 400, body: { errcode: "M_UNRECOGNIZED", error: "no" } },
      { op: "send" },
    );
    expect(await failure()).toMatchObject({
      kind: "unknown",
      evidence: "not_dispatched",
      platformCode: "M_UNRECOGNIZED",
    });
    fake.failNext(
      { kind: "status", status: 404, body: { errcode: "ORG_EXAMPLE_GONE", error: "gone" } },
      { op: "send" },
    );
    expect(await failure()).toMatchObject({
      kind: "not_found",
      evidence: "not_dispatched",
      platformCode: "ORG_EXAMPLE_GONE",
    });
    // An errcode named like an Object.prototype member is no table entry.
    fake.failNext(
      { kind: "status", status: 400, body: { errcode: "toString", error: "odd" } },
      { op: "send" },
    );
    expect(await failure()).toMatchObject({ kind: "invalid_payload", platformCode: "toString" });
  });

  it("an edit the homeserver does not show is not_found (send fresh); an encrypted room is permission", () => {
    expect(classifyError(new MatrixEditNotShownError("$a", "$b", 2))).toMatchObject({
      kind: "not_found",
      evidence: "not_dispatched",
      platformCode: "edit_not_shown",
    });
    expect(classifyError(new MatrixEncryptedRoomError("!r:x"))).toMatchObject({
      kind: "permission",
      evidence: "not_dispatched",
      platformCode: "encrypted_room",
    });
    expect(classifyError("a string")).toEqual({
      kind: "unknown",
      evidence: "maybe_sent",
      message: "a string",
    });
  });
});
