import { describe, expect, it } from "vitest";
import { telegramConfigSchema } from "./config.ts";
import { telegramCapabilities } from "./index.ts";

describe("telegram config", () => {
  it("fills Telegram's defaults: polling, 4096/1024 limits, hold, no probing", () => {
    const config = telegramConfigSchema.parse({});
    expect(config).toMatchObject({
      tokenEnv: "TELEGRAM_BOT_TOKEN",
      apiRoot: "https://api.telegram.org",
      receive: { mode: "polling", pollTimeoutSeconds: 25, limit: 100 },
      maxTextLength: 4096,
      maxCaptionLength: 1024,
      unknownSendPolicy: "hold",
      reconcile: "off",
      previewIntervalMs: 1_000,
    });
  });

  it("removes a trailing slash from apiRoot (grammY refuses one)", () => {
    expect(telegramConfigSchema.parse({ apiRoot: "http://127.0.0.1:8081/" }).apiRoot).toBe(
      "http://127.0.0.1:8081",
    );
  });

  it("names the field path of a mistake", () => {
    const result = telegramConfigSchema.safeParse({
      receive: { mode: "webhook", secretTokenEnv: "not a var" },
      maxTextLength: 5000,
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join(".")).sort();
    expect(paths).toEqual(["maxTextLength", "receive.secretTokenEnv"]);
  });

  it("a receive block without mode is polling, as documented; a wrong mode names the options", () => {
    expect(telegramConfigSchema.parse({ receive: { pollTimeoutSeconds: 10 } }).receive).toEqual(
      expect.objectContaining({ mode: "polling", pollTimeoutSeconds: 10, limit: 100 }),
    );
    const push = telegramConfigSchema.safeParse({ receive: { mode: "push" } });
    expect(push.error?.issues).toEqual([
      expect.objectContaining({
        path: ["receive", "mode"],
        options: expect.arrayContaining(["polling", "webhook"]),
      }),
    ]);
  });

  it("never takes the token itself: tokenEnv is a variable name", () => {
    expect(telegramConfigSchema.safeParse({ tokenEnv: "123456:ABC-secret" }).success).toBe(false);
  });
});

describe("telegram capabilities", () => {
  it("declares the Bot API rate limits: 30/s per bot, 1/s per chat, 20/min per group", () => {
    const caps = telegramCapabilities(telegramConfigSchema.parse({}));
    expect(caps.rateLimits).toEqual([
      { scope: "account", limit: 30, intervalMs: 1_000 },
      { scope: "chat", limit: 1, intervalMs: 1_000 },
      { scope: "chat", limit: 20, intervalMs: 60_000, targetKinds: ["group", "thread"] },
    ]);
    expect(caps.live?.editRate).toEqual({ limit: 1, intervalMs: 1_000 });
    expect(caps.delivery).toMatchObject({
      idempotencyKey: false,
      unknownSendPolicy: "hold",
      freshSendOnEditNotFound: true,
    });
    expect(caps.text).toEqual({ maxLength: 4096, chunking: true });
  });
});
