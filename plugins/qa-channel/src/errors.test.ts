import { afterEach, describe, expect, it } from "vitest";
import { QaClient } from "./client.ts";
import { classifyError, QaApiError, QaNetworkError } from "./errors.ts";
import { DEFAULT_QA_BOT, QaPlatform } from "./testing/platform/QaPlatform.ts";

let platform: QaPlatform;
afterEach(() => platform.close());

async function failureOf(setup: (p: QaPlatform) => Promise<unknown> | unknown, timeoutMs = 5_000) {
  platform = await QaPlatform.start();
  platform.createChat({ id: "c1", type: "group" });
  const client = new QaClient({ baseUrl: platform.url, token: DEFAULT_QA_BOT.token, timeoutMs });
  await setup(platform);
  const error = await client.postMessage("c1", { text: "hi" }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, classified: classifyError(error) };
}

describe("classifyError on what the real client sees", () => {
  it("a refused connection is transient and provably not dispatched", async () => {
    let restore: () => Promise<void> = async () => {};
    const { error, classified } = await failureOf(async (p) => {
      restore = await p.faults.refuseConnections();
    });
    await restore();
    expect(error).toBeInstanceOf(QaNetworkError);
    expect(classified).toMatchObject({
      kind: "transient",
      evidence: "not_dispatched",
      platformCode: "refused",
    });
  });

  it("a reset after the platform stored the message is maybe sent", async () => {
    const { classified } = await failureOf((p) =>
      p.faults.failNext({ kind: "reset_after_accept" }),
    );
    expect(classified).toMatchObject({
      kind: "transient",
      evidence: "maybe_sent",
      platformCode: "reset",
    });
    expect(platform.state.messages({ chat: "c1" })).toHaveLength(1);
  });

  it("a timeout is maybe sent (the platform may still apply the call)", async () => {
    const { classified } = await failureOf(
      (p) => p.faults.failNext({ kind: "delay", delayMs: 300 }),
      100,
    );
    expect(classified).toMatchObject({
      kind: "transient",
      evidence: "maybe_sent",
      platformCode: "timeout",
    });
  });

  it("a 429 converts retry_after_ms from the body once into retryAfterMs", async () => {
    const { error, classified } = await failureOf((p) =>
      p.faults.failNext({ kind: "rate_limit", retryAfterMs: 1_120 }),
    );
    expect(error).toBeInstanceOf(QaApiError);
    expect((error as QaApiError).name).toBe("QaApiError[rate_limited]");
    expect(classified).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      retryAfterMs: 1_120,
      rateLimitScope: "chat",
    });
  });

  it("a 429 with only a Retry-After header waits that many seconds", async () => {
    const { classified } = await failureOf((p) =>
      p.faults.failNext({ kind: "rate_limit", retryAfterMs: 2_500, via: "header" }),
    );
    expect(classified).toMatchObject({ kind: "rate_limit", retryAfterMs: 3_000 });
  });

  it("a 5xx is transient and maybe sent", async () => {
    const { classified } = await failureOf((p) =>
      p.faults.failNext({ kind: "status", status: 502 }),
    );
    expect(classified).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
  });

  it.each([
    [401, "auth"],
    [403, "permission"],
    [404, "not_found"],
    [400, "invalid_payload"],
    [409, "conflict"],
  ] as const)("a %i is %s and not dispatched", async (status, kind) => {
    const { classified } = await failureOf((p) => p.faults.failNext({ kind: "status", status }));
    expect(classified).toMatchObject({ kind, evidence: "not_dispatched" });
  });

  it("anything else is unknown and maybe sent (the safe default)", () => {
    expect(classifyError(new Error("boom"))).toMatchObject({
      kind: "unknown",
      evidence: "maybe_sent",
    });
  });

  it("never puts the bot token in an error message", async () => {
    const { error } = await failureOf((p) => p.faults.failNext({ kind: "status", status: 500 }));
    const secret = DEFAULT_QA_BOT.token.split(":")[1] as string;
    expect(String((error as Error).message)).not.toContain(secret);
    expect(JSON.stringify(classifyError(error))).not.toContain(secret);
  });
});

describe("network evidence (the SDK's one classification)", () => {
  const fetchFailed = (code: string) =>
    new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });

  it("knows the undici codes it used to miss: a connect timeout never left, a closed client may have", () => {
    expect(
      classifyError(
        new QaNetworkError("POST /chats/:chat_id/messages", fetchFailed("UND_ERR_CONNECT_TIMEOUT")),
      ),
    ).toMatchObject({
      kind: "transient",
      evidence: "not_dispatched",
      platformCode: "connect_timeout",
    });
    expect(
      classifyError(
        new QaNetworkError("POST /chats/:chat_id/messages", fetchFailed("UND_ERR_CLOSED")),
      ),
    ).toMatchObject({ kind: "transient", evidence: "maybe_sent", platformCode: "reset" });
  });
});
