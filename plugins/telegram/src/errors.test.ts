import { describe, expect, it } from "vitest";
import {
  classifyError,
  redactToken,
  TelegramApiError,
  TelegramNetworkError,
  TelegramRenderError,
} from "./errors.ts";

const TOKEN = "7000001:AAH4fakeTokenForHeraldTests_x9Qz";
const api = (error_code: number, description: string, parameters = {}) =>
  new TelegramApiError("sendMessage", { error_code, description, parameters });

describe("classifyError", () => {
  it("turns 429 retry_after seconds into retryAfterMs, not dispatched, per chat", () => {
    expect(
      classifyError(api(429, "Too Many Requests: retry after 17", { retry_after: 17 })),
    ).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      retryAfterMs: 17_000,
      rateLimitScope: "chat",
      platformCode: "429",
    });
  });

  it.each([
    [
      "Bad Request: message is not modified: specified new message content and reply markup are exactly the same",
      "conflict",
    ],
    ["Bad Request: message to edit not found", "not_found"],
    ["Bad Request: message to delete not found", "not_found"],
    ["Bad Request: message thread not found", "not_found"],
    ["Bad Request: chat not found", "not_found"],
    ["Bad Request: message to be replied not found", "not_found"],
    ["Bad Request: MESSAGE_ID_INVALID", "not_found"],
    ["Bad Request: TOPIC_DELETED", "not_found"],
    ["Bad Request: group chat was upgraded to a supergroup chat", "not_found"],
    ["Bad Request: TOPIC_CLOSED", "permission"],
    ["Bad Request: not enough rights to send text messages to the chat", "permission"],
    ["Bad Request: message can't be edited", "permission"],
    ["Bad Request: can't parse entities: Character '!' is reserved", "invalid_payload"],
    ["Bad Request: message is too long", "invalid_payload"],
    ["Bad Request: message text is empty", "invalid_payload"],
    ["Bad Request: message caption is too long", "invalid_payload"],
    ["Bad Request: wrong file identifier/HTTP URL specified", "invalid_payload"],
    ["Bad Request: BUTTON_DATA_INVALID", "invalid_payload"],
  ])("classifies 400 %s as %s, never dispatched", (description, kind) => {
    expect(classifyError(api(400, description))).toMatchObject({
      kind,
      evidence: "not_dispatched",
    });
  });

  it.each([
    [401, "Unauthorized", "auth"],
    [404, "Not Found", "auth"],
    [403, "Forbidden: bot was blocked by the user", "permission"],
    [403, "Forbidden: bot was kicked from the group chat", "permission"],
    [409, "Conflict: terminated by other getUpdates request", "conflict"],
  ])("classifies %i %s as %s", (code, description, kind) => {
    expect(classifyError(api(code, description))).toMatchObject({
      kind,
      evidence: "not_dispatched",
    });
  });

  it("keeps the new supergroup id of a migrated group in the reason", () => {
    const failure = classifyError(
      api(400, "Bad Request: group chat was upgraded to a supergroup chat", {
        migrate_to_chat_id: -1001234,
      }),
    );
    expect(failure.message).toContain("-1001234");
  });

  it("treats 5xx as maybe sent", () => {
    expect(classifyError(api(502, "Bad Gateway"))).toMatchObject({
      kind: "transient",
      evidence: "maybe_sent",
    });
  });

  it("separates refused connections (never dispatched) from resets and timeouts (maybe sent)", () => {
    const fetchFailed = (code: string) =>
      new TypeError("fetch failed", { cause: Object.assign(new Error(code), { code }) });
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "UND_ERR_CONNECT_TIMEOUT", "EHOSTUNREACH"]) {
      expect(
        classifyError(new TelegramNetworkError("sendMessage", fetchFailed(code))),
      ).toMatchObject({
        kind: "transient",
        evidence: "not_dispatched",
      });
    }
    for (const code of [
      "ECONNRESET",
      "UND_ERR_SOCKET",
      "UND_ERR_CLOSED",
      "UND_ERR_HEADERS_TIMEOUT",
      "EWHAT",
    ]) {
      expect(
        classifyError(new TelegramNetworkError("sendMessage", fetchFailed(code))),
      ).toMatchObject({
        kind: "transient",
        evidence: "maybe_sent",
      });
    }
    const error = new TelegramNetworkError("sendMessage", fetchFailed("ECONNREFUSED"));
    expect(error.name).toBe("TelegramNetworkError[refused]");
    expect(error.message).toBe("sendMessage: no answer from the Bot API (refused, ECONNREFUSED)");
  });

  it("classifies grammY's own GrammyError and HttpError by shape", () => {
    const grammy = Object.assign(
      new Error("Call to 'sendMessage' failed! (429: Too Many Requests)"),
      {
        name: "GrammyError",
        error_code: 429,
        description: "Too Many Requests: retry after 3",
        method: "sendMessage",
        parameters: { retry_after: 3 },
      },
    );
    expect(classifyError(grammy)).toMatchObject({ kind: "rate_limit", retryAfterMs: 3_000 });
    const refused = Object.assign(new Error("Network request for 'sendMessage' failed!"), {
      name: "HttpError",
      error: Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }),
    });
    expect(classifyError(refused)).toMatchObject({ evidence: "not_dispatched" });
    const reset = Object.assign(new Error("Network request for 'sendMessage' failed!"), {
      name: "HttpError",
      error: Object.assign(new TypeError("fetch failed"), { cause: { code: "UND_ERR_SOCKET" } }),
    });
    expect(classifyError(reset)).toMatchObject({ evidence: "maybe_sent" });
  });

  it("classifies render errors as invalid payload and anything else as unknown, maybe sent", () => {
    expect(classifyError(new TelegramRenderError("nothing to send"))).toMatchObject({
      kind: "invalid_payload",
      evidence: "not_dispatched",
    });
    expect(classifyError(new Error("boom"))).toMatchObject({
      kind: "unknown",
      evidence: "maybe_sent",
    });
  });

  it("never returns the token in a reason", () => {
    const leaky = new Error(`request to http://127.0.0.1/bot${TOKEN}/sendMessage failed`);
    expect(classifyError(leaky, TOKEN).message).not.toContain(TOKEN);
    expect(classifyError(leaky, TOKEN).message).not.toContain(TOKEN.split(":")[1]);
  });
});

describe("redactToken", () => {
  it("removes the whole token and its secret half", () => {
    expect(redactToken(`GET /bot${TOKEN}/getMe`, TOKEN)).toBe("GET /bot[redacted]/getMe");
    expect(redactToken(`secret ${TOKEN.split(":")[1]}`, TOKEN)).toBe("secret [redacted]");
  });

  it("redacts the trimmed token when the configured one ends in a newline", () => {
    expect(redactToken(`GET /bot${TOKEN}/getMe`, `${TOKEN}\n`)).toBe("GET /bot[redacted]/getMe");
    expect(redactToken(`GET /bot${encodeURIComponent(TOKEN)}/getMe`, `${TOKEN}\n`)).toBe(
      "GET /bot[redacted]/getMe",
    );
  });
});
