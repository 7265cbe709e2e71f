// createAccount and the webhook receiver against the fake API: a rejected token stops the
// account with the fix; a forged signature is answered 401 and records nothing; a signed event
// reaches the handler once.
import { ChannelAccountError } from "@herald/plugin-sdk/channel-message";
import { eventually, openTestRun } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import plugin, { createHttpChatAdapter, httpChatConfigSchema } from "./index.ts";
import { ALICE, FAKE_BOT, FakeHttpChat, signedHeaders } from "./testing/index.ts";

let fake: FakeHttpChat | undefined;
afterEach(() => fake?.close());

async function open(token: string) {
  fake = await FakeHttpChat.start();
  const adapter = createHttpChatAdapter(
    httpChatConfigSchema.parse({
      baseUrl: fake.url,
      tokenEnv: "T",
      webhookSecretEnv: "H",
      maxLength: 100,
    }),
    token,
  );
  const run = await openTestRun({ adapters: [adapter], accountId: "main" });
  const secrets: Record<string, string> = { TOKEN: token, HOOK: FAKE_BOT.webhookSecret };
  const config = httpChatConfigSchema.parse({
    baseUrl: fake.url,
    tokenEnv: "TOKEN",
    webhookSecretEnv: "HOOK",
  });
  const account = plugin.createAccount?.(config, {
    accountId: "main",
    logger: run.logger,
    clock: Date.now,
    secret: (name) => secrets[name] ?? "",
    sink: run.sink("httpchat"),
    signal: new AbortController().signal,
  });
  return { run, account };
}

describe("createAccount", () => {
  it("stops the account with the fix when the API rejects the token", async () => {
    const { run, account } = await open("tok-wrong-000000");
    const error = await account?.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelAccountError);
    expect((error as ChannelAccountError).fix).toBe("check TOKEN");
    await run.close();
  });

  it("names the bot and serves a webhook that refuses forged signatures", async () => {
    const { run, account } = await open(FAKE_BOT.token);
    const opened = await account;
    expect(opened?.identity).toEqual({ id: FAKE_BOT.id, name: FAKE_BOT.name });
    const webhook = opened?.receiver?.webhook;
    if (!fake || !webhook) throw new Error("the account has no webhook");
    const chat = fake.createChat("direct");
    const event = JSON.stringify({
      event_id: "e1",
      type: "message.created",
      message: fake.wire(fake.state.post({ chat, text: "hello", author: ALICE }).message),
    });
    const post = (headers: Record<string, string>) =>
      webhook(
        new Request("http://gateway/webhooks/httpchat/main", {
          method: "POST",
          headers,
          body: event,
        }),
      );
    const forged = {
      ...signedHeaders(FAKE_BOT.webhookSecret, event),
      "x-httpchat-signature": "sha256=00",
    };
    expect((await post(forged)).status).toBe(401);
    expect(run.outcomes).toEqual([]);
    expect((await post(signedHeaders(FAKE_BOT.webhookSecret, event))).status).toBe(200);
    await eventually(
      () => run.handled.length,
      (n) => n === 1,
      { what: "the handler call" },
    );
    expect(run.handled[0]?.input.body?.markdown).toBe("hello");
    await run.close();
  });
});
