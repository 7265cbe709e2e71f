import { ChannelAccountError } from "@herald/plugin-sdk/channel-message";
import { afterEach, describe, expect, it } from "vitest";
import { slackConfigSchema } from "./config.ts";
import slack, { checkSlackCredentials, createSlackAccount } from "./index.ts";
import { FAKE_BOT, FakeSlack } from "./testing/index.ts";

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const deps = (token: string) => ({
  accountId: "main",
  secret: (name: string) => {
    if (name === "SLACK_SIGNING_SECRET") return FAKE_BOT.signingSecret;
    if (name !== "SLACK_BOT_TOKEN") throw new Error(`no secret ${name}`);
    return token;
  },
  sink: { receive: () => Promise.reject(new Error("no receive")) } as never,
  log: undefined as never,
});

describe("account", () => {
  it("reads the bot's user, bot, team and app ids with auth.test before anything runs", async () => {
    fake = await FakeSlack.start();
    const config = slackConfigSchema.parse({ slackApiUrl: fake.apiUrl });
    const account = await createSlackAccount(config, deps(FAKE_BOT.token) as never);
    expect(account.identity).toEqual({
      id: FAKE_BOT.userId,
      otherIds: [FAKE_BOT.botId, FAKE_BOT.appId],
      name: FAKE_BOT.name,
    });
    expect(fake.server.calls.map((c) => c.path)).toEqual(["/api/auth.test"]);
    expect(account.adapter.id).toBe("slack");
  });

  it("a rejected token stops the account with a ChannelAccountError naming the variable, token redacted", async () => {
    fake = await FakeSlack.start();
    const config = slackConfigSchema.parse({ slackApiUrl: fake.apiUrl });
    const wrong = "xoxb-0000-wrong-token-value";
    const error = await createSlackAccount(config, deps(wrong) as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelAccountError);
    expect(String((error as Error).message)).not.toContain(wrong);
    expect(JSON.stringify(error)).not.toContain(wrong);
    expect(`${(error as Error).message} ${(error as ChannelAccountError).fix ?? ""}`).toContain(
      "SLACK_BOT_TOKEN",
    );
  });

  it("checkCredentials names the bot and team, or the fix", async () => {
    fake = await FakeSlack.start();
    const config = slackConfigSchema.parse({ slackApiUrl: fake.apiUrl });
    const good = await checkSlackCredentials(config, deps(FAKE_BOT.token));
    expect(good).toMatchObject({ ok: true });
    expect(good.detail).toContain(FAKE_BOT.teamId);
    const bad = await checkSlackCredentials(config, deps("xoxb-nope-nope-nope"));
    expect(bad.ok).toBe(false);
    expect(bad.detail).toContain("SLACK_BOT_TOKEN");
    expect(bad.detail).not.toContain("xoxb-nope-nope-nope");
  });
});

describe("config", () => {
  it("defaults: Events API, Slack's hard text limit, history paced at one read a minute", () => {
    const config = slackConfigSchema.parse({});
    expect(config).toMatchObject({
      tokenEnv: "SLACK_BOT_TOKEN",
      slackApiUrl: "https://slack.com/api/",
      receive: {
        mode: "events",
        signingSecretEnv: "SLACK_SIGNING_SECRET",
        maxClockSkewMs: 300_000,
      },
      maxTextLength: 40_000,
      unknownSendPolicy: "hold",
      reconcile: { historyIntervalMs: 60_000, maxPagesPerCheck: 3 },
    });
  });

  it("adds the trailing slash to slackApiUrl and names the field of a bad value", () => {
    expect(slackConfigSchema.parse({ slackApiUrl: "http://127.0.0.1:9/api" }).slackApiUrl).toBe(
      "http://127.0.0.1:9/api/",
    );
    const bad = slackConfigSchema.safeParse({ maxTextLength: 50_000, tokenEnv: "not a name" });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join(".")) ?? [];
    expect(paths).toEqual(expect.arrayContaining(["maxTextLength", "tokenEnv"]));
  });

  it("declares Slack's method tiers as rate limits (per channel posts, per workspace updates)", () => {
    const adapter = slack.createAdapter(slackConfigSchema.parse({}), {
      secret: () => FAKE_BOT.token,
    } as never);
    expect(adapter.capabilities.rateLimits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          scope: "chat",
          limit: 1,
          intervalMs: 1_000,
          operations: ["send", "stream_begin"],
        }),
        expect.objectContaining({
          scope: "account",
          limit: 50,
          intervalMs: 60_000,
          operations: ["edit"],
        }),
      ]),
    );
    expect(adapter.capabilities.delivery).toMatchObject({
      idempotencyKey: false,
      reconcile: { notSent: "complete" },
    });
    expect(
      adapter.rateLimitRoute?.({ operation: "send", target: { kind: "group", id: "C1" } }),
    ).toBe("chat.postMessage:C1");
  });
});
