/**
 * [H28] C49 on Slack: team ids that name `Object.prototype` members get the normal "unknown
 * workspace" answer; a signing secret or token ending in a newline (as `echo … > file` writes it)
 * works, trimmed; a malformed one stops the account at start with the setting named (never the
 * value); every refused request leaves a log line.
 */
import { isMalformedSecretError, MalformedSecretError } from "@herald/plugin-sdk/channel-message";
import { openTestRun } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { createSlackAccount, createSlackAdapter, createSlackReceiver } from "./index.ts";
import * as fixtures from "./testing/fixtures.ts";
import { testConfig } from "./testing/harness.ts";
import { FAKE_BOT, FakeSlack, signSlackRequest } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

/**
 * A herald whose adapter serves only account "main", as the gateway registers it (adapters are
 * keyed by channel and account), behind the Events receiver of a config routing `T00000002`.
 */
async function keyedRun() {
  const fake = await FakeSlack.start();
  const config = testConfig(
    {
      apiUrl: fake.apiUrl,
      token: FAKE_BOT.token,
      signingSecret: FAKE_BOT.signingSecret,
      unknownSendPolicy: "hold",
    },
    { receive: { mode: "events", teams: { T00000002: "second" } } },
  );
  const adapter = createSlackAdapter(config, { token: FAKE_BOT.token });
  const run = await openTestRun({ adapters: [{ accountId: "main", adapter }], accountId: "main" });
  const receiver = createSlackReceiver(config, run.sink("slack", "main"), {
    signingSecret: FAKE_BOT.signingSecret,
  });
  fake.events.connect(FAKE_BOT, (request) => receiver.webhook?.(request) as Promise<Response>);
  onTestFinished(async () => {
    await run.close();
    await fake.close();
  });
  return { run, fake };
}

describe("hostile team ids (C49)", () => {
  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])(
    'team_id "%s" is an unknown workspace: 200, ignored, no dead letter, nothing handled',
    async (team) => {
      const { run, fake } = await keyedRun();
      const body = JSON.stringify({ ...fixtures.envelope(fixtures.channelMessage), team_id: team });
      const response = await fake.events.post(FAKE_BOT, body);
      expect(response?.status).toBe(200);
      await expect.poll(() => run.outcomes.length).toBe(1);
      expect(run.outcomes[0]).toMatchObject({ status: "ignored", reason: "other workspace" });
      expect(await run.store.listDeadLetters()).toEqual([]);
      expect(run.handled).toEqual([]);
    },
  );
});

/** Deps of `createSlackAccount` over a test run, with the secrets as `values` gives them. */
function accountDeps(
  run: Awaited<ReturnType<typeof openSlackRun>>,
  values: Record<string, string>,
) {
  return {
    accountId: "main",
    logger: run.logger,
    clock: Date.now,
    secret: (name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`no secret ${name}`);
      return value;
    },
    sink: run.sink("slack", "main"),
    signal: new AbortController().signal,
  };
}

describe("secrets read at start (C49)", () => {
  it("trims a signing secret and a token that end in a newline: genuine events are accepted", async () => {
    const run = await openSlackRun(onTestFinished);
    const config = testConfig({
      apiUrl: run.fake.apiUrl,
      token: FAKE_BOT.token,
      signingSecret: FAKE_BOT.signingSecret,
      unknownSendPolicy: "hold",
    });
    const account = await createSlackAccount(
      config,
      accountDeps(run, {
        SLACK_BOT_TOKEN: `${FAKE_BOT.token}\n`,
        SLACK_SIGNING_SECRET: `${FAKE_BOT.signingSecret}\n`,
      }),
    );
    const body = JSON.stringify(fixtures.envelope(fixtures.channelMessage));
    const response = await account.receiver?.webhook?.(
      new Request("http://127.0.0.1/webhooks/slack/main", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...signSlackRequest(FAKE_BOT.signingSecret, body),
        },
        body,
      }),
    );
    expect(response?.status).toBe(200);
    await expect.poll(() => run.handled.length).toBe(1);
  });

  it.each([
    ["SLACK_BOT_TOKEN", "xoxp-a-user-token-not-a-bot", "tokenEnv", "xoxb-"],
    ["SLACK_BOT_TOKEN", "   \n", "tokenEnv", "is empty"],
    [
      "SLACK_SIGNING_SECRET",
      "8f742231b10e 8888abcd99yyyzzz85a5",
      "receive.signingSecretEnv",
      "whitespace",
    ],
    [
      "SLACK_SIGNING_SECRET",
      "'8f742231b10e8888abcd99yyyzzz85a5'",
      "receive.signingSecretEnv",
      "signing secret",
    ],
  ])(
    "refuses %s = %j at start, naming the setting %s, never the value",
    async (name, value, setting, says) => {
      const run = await openSlackRun(onTestFinished);
      const config = testConfig({
        apiUrl: run.fake.apiUrl,
        token: FAKE_BOT.token,
        signingSecret: FAKE_BOT.signingSecret,
        unknownSendPolicy: "hold",
      });
      const error = await createSlackAccount(
        config,
        accountDeps(run, {
          SLACK_BOT_TOKEN: FAKE_BOT.token,
          SLACK_SIGNING_SECRET: FAKE_BOT.signingSecret,
          [name]: value,
        }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MalformedSecretError);
      expect(isMalformedSecretError(error)).toBe(true);
      const e = error as MalformedSecretError;
      expect(e).toMatchObject({ setting, source: name, code: "HERALD_ACCOUNT_UNUSABLE" });
      expect(`${e.message} ${e.fix}`).toContain(name);
      expect(`${e.message} ${e.fix}`).toContain(setting);
      expect(e.message).toContain(says);
      if (value.trim())
        expect(JSON.stringify({ m: e.message, f: e.fix })).not.toContain(value.trim());
    },
  );
});

describe("refused requests are logged (C49)", () => {
  it("logs each 401 with its reason, never the signature or the secret", async () => {
    const run = await openSlackRun(onTestFinished);
    const body = JSON.stringify(fixtures.envelope(fixtures.channelMessage));
    const forged = signSlackRequest(`${FAKE_BOT.signingSecret}x`, body);
    const response = await run.fake.events.post(FAKE_BOT, body, { headers: forged });
    expect(response?.status).toBe(401);
    const refused = run.logLines.filter((l) => l.includes("(401)"));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain("bad_signature");
    expect(refused[0]).not.toContain(FAKE_BOT.signingSecret);
    expect(refused[0]).not.toContain(forged["x-slack-signature"] as string);
  });
});
