import { describe, expect, it } from "vitest";
import { googleChatConfigSchema } from "./config.ts";
import { googleChatCapabilities } from "./index.ts";

const minimal = { credentials: { type: "access_token" } };

describe("config", () => {
  it("defaults: Chat's root URL, 4096 characters, the documented write limits", () => {
    const config = googleChatConfigSchema.parse(minimal);
    expect(config.rootUrl).toBe("https://chat.googleapis.com/");
    expect(config.maxTextLength).toBe(4096);
    expect(config.credentials).toEqual({
      type: "access_token",
      tokenEnv: "GOOGLE_CHAT_ACCESS_TOKEN",
    });
    expect(googleChatCapabilities(config).rateLimits).toEqual([
      { id: "space-second", scope: "chat", limit: 1, intervalMs: 1_000 },
      { id: "space-minute", scope: "chat", limit: 60, intervalMs: 60_000 },
      { id: "project-minute", scope: "account", limit: 3_000, intervalMs: 60_000 },
    ]);
  });

  it("declares the native key, reconciliation by GET, threads without DMs, no retry-after", () => {
    const caps = googleChatCapabilities(googleChatConfigSchema.parse(minimal));
    expect(caps.delivery).toMatchObject({
      idempotencyKey: true,
      reconcile: { notSent: "complete" },
      retryAfter: false,
      freshSendOnEditNotFound: true,
    });
    expect(caps.delivery?.idempotencyWindowMs).toBeUndefined();
    expect(caps.threads).toEqual({ reply: true, nativeThread: true, inDirect: false });
  });

  it("adds the trailing slash to rootUrl", () => {
    expect(
      googleChatConfigSchema.parse({ ...minimal, rootUrl: "http://127.0.0.1:9" }).rootUrl,
    ).toBe("http://127.0.0.1:9/");
  });

  it("errors name the field path", () => {
    const bad = (input: unknown) => {
      const r = googleChatConfigSchema.safeParse(input);
      return r.success ? [] : r.error.issues.map((i) => i.path.join("."));
    };
    expect(bad({ credentials: { type: "service_account" } })).toEqual(["credentials"]);
    expect(
      bad({ ...minimal, receive: { audience: { type: "project_number", projectNumber: "12a" } } }),
    ).toEqual(["receive.audience.projectNumber"]);
    expect(bad({ ...minimal, maxTextLength: 5000 })).toEqual(["maxTextLength"]);
    expect(bad({ ...minimal, token: "ya29.inline" })).toEqual([""]);
  });

  it("a receive block defaults the certificate URLs to Google's", () => {
    const config = googleChatConfigSchema.parse({
      ...minimal,
      receive: { audience: { type: "endpoint_url", url: "https://bot.test/googlechat" } },
    });
    expect(config.receive?.certsUrls.idToken).toBe("https://www.googleapis.com/oauth2/v1/certs");
    expect(config.receive?.audience).toEqual({
      type: "endpoint_url",
      url: "https://bot.test/googlechat",
      serviceAccountEmails: ["chat@system.gserviceaccount.com"],
    });
  });
});
