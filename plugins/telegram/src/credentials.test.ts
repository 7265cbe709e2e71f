/** `herald doctor`'s credential check: `getMe` against the configured API root, token never shown. */
import { describe, expect, it, onTestFinished } from "vitest";
import { telegramConfigSchema } from "./config.ts";
import { checkTelegramCredentials } from "./index.ts";
import { FAKE_BOT, FakeTelegram } from "./testing/FakeTelegram.ts";

const secrets = (values: Record<string, string>) => ({
  secret(name: string) {
    const value = values[name];
    if (value === undefined) throw new Error(`environment variable ${name} is not set`);
    return value;
  },
});

async function fake() {
  const telegram = await FakeTelegram.start();
  onTestFinished(() => telegram.close());
  return telegram;
}

describe("checkCredentials", () => {
  it("names the bot when getMe succeeds", async () => {
    const telegram = await fake();
    const config = telegramConfigSchema.parse({ apiRoot: telegram.apiRoot, tokenEnv: "TG_TOKEN" });
    expect(await checkTelegramCredentials(config, secrets({ TG_TOKEN: FAKE_BOT.token }))).toEqual({
      ok: true,
      detail: `bot @${FAKE_BOT.username} (id ${FAKE_BOT.id}) at ${telegram.apiRoot}`,
    });
  });

  it("says the token was rejected on 401, naming the variable and never the token", async () => {
    const telegram = await fake();
    const config = telegramConfigSchema.parse({ apiRoot: telegram.apiRoot, tokenEnv: "TG_TOKEN" });
    const token = "123456:AAwrongTokenValueNobodyKnows_42";
    const result = await checkTelegramCredentials(config, secrets({ TG_TOKEN: token }));
    expect(result.ok).toBe(false);
    expect(result.detail).toContain("the token in TG_TOKEN was rejected");
    expect(result.detail).toContain("401");
    expect(result.detail).not.toContain(token);
    expect(result.detail).not.toContain(token.split(":")[1]);
  });

  it("says the API root cannot be reached", async () => {
    const telegram = await fake();
    const apiRoot = telegram.apiRoot;
    await telegram.close();
    const config = telegramConfigSchema.parse({ apiRoot, tokenEnv: "TG_TOKEN" });
    const result = await checkTelegramCredentials(config, secrets({ TG_TOKEN: FAKE_BOT.token }));
    expect(result).toMatchObject({ ok: false });
    expect(result.detail).toContain(`could not reach ${apiRoot}`);
    expect(result.detail).not.toContain(FAKE_BOT.token);
  });

  it("names a missing variable", async () => {
    const config = telegramConfigSchema.parse({ tokenEnv: "TG_TOKEN" });
    const result = await checkTelegramCredentials(config, secrets({}));
    expect(result).toEqual({
      ok: false,
      detail: "getMe failed: environment variable TG_TOKEN is not set",
    });
  });
});
