/**
 * Opening an account: credentials from the env (never the config), proven with `spaces.list`
 * against the fake; a rejected token stops the account with a ChannelAccountError that names
 * the source and never the token. A service-account key builds a JWT client without I/O.
 */
import { isChannelAccountError } from "@herald/plugin-sdk/channel-message";
import { afterEach, describe, expect, it } from "vitest";
import { credentialsOf } from "./auth.ts";
import { googleChatConfigSchema } from "./config.ts";
import { GoogleChatRenderError } from "./errors.ts";
import { checkGoogleChatCredentials, createGoogleChatAccount } from "./index.ts";
import { FAKE_ACCESS_TOKEN, FakeGoogleChat } from "./testing/FakeGoogleChat.ts";

let fake: FakeGoogleChat | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const secretFrom = (env: Record<string, string>) => (name: string) => {
  const value = env[name];
  if (value === undefined) throw new Error(`missing env ${name}`);
  return value;
};

async function configFor() {
  fake = await FakeGoogleChat.start();
  return googleChatConfigSchema.parse({
    credentials: { type: "access_token", tokenEnv: "GC_TOKEN" },
    rootUrl: fake.rootUrl,
    requestTimeoutMs: 2_000,
  });
}

const deps = (token: string) =>
  ({
    accountId: "main",
    secret: secretFrom({ GC_TOKEN: token }),
    signal: new AbortController().signal,
    sink: {} as never,
  }) as unknown as Parameters<typeof createGoogleChatAccount>[1];

describe("accounts", () => {
  it("opens with a token the Chat API accepts", async () => {
    const config = await configFor();
    const account = await createGoogleChatAccount(config, deps(FAKE_ACCESS_TOKEN));
    expect(account.adapter.id).toBe("googlechat");
    expect(account.receiver).toBeUndefined();
    expect(
      await checkGoogleChatCredentials(config, {
        secret: secretFrom({ GC_TOKEN: FAKE_ACCESS_TOKEN }),
      }),
    ).toMatchObject({ ok: true });
  });

  it("a rejected token stops the account with the source named and the token redacted", async () => {
    const config = await configFor();
    const wrong = "ya29.wrong-token-for-tests-000";
    const error = await createGoogleChatAccount(config, deps(wrong)).catch((e: unknown) => e);
    expect(isChannelAccountError(error)).toBe(true);
    expect(String((error as Error).message)).toContain("env GC_TOKEN");
    expect(String((error as Error).message)).not.toContain(wrong);
    const check = await checkGoogleChatCredentials(config, {
      secret: secretFrom({ GC_TOKEN: wrong }),
    });
    expect(check.ok).toBe(false);
    expect(check.detail).toContain("auth");
  });

  it("a service account key from the env builds a JWT client with the chat.bot scope; a bad key is a typed error", () => {
    const config = googleChatConfigSchema.parse({
      credentials: { type: "service_account", keyJsonEnv: "GC_KEY" },
    });
    const key = JSON.stringify({
      type: "service_account",
      client_email: "bot@project.iam.gserviceaccount.com",
      private_key: "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
    });
    const credentials = credentialsOf(config, { secret: secretFrom({ GC_KEY: key }) });
    expect((credentials.auth as unknown as { email: string }).email).toBe(
      "bot@project.iam.gserviceaccount.com",
    );
    expect((credentials.auth as unknown as { scopes: string[] }).scopes).toEqual([
      "https://www.googleapis.com/auth/chat.bot",
    ]);
    expect(credentials.secrets).toContain(key);
    expect(() => credentialsOf(config, { secret: secretFrom({ GC_KEY: "{}" }) })).toThrow(
      GoogleChatRenderError,
    );
  });
});
