/** The fake's optional per-channel post limit, seen through the real `WebClient`. */
import { WebClient } from "@slack/web-api";
import { describe, expect, it, onTestFinished } from "vitest";
import { FAKE_BOT, FakeSlack } from "./FakeSlack.ts";

describe("fake Slack post limit", () => {
  it("answers a post over the per-channel limit 429 with Retry-After and does not apply it", async () => {
    const fake = await FakeSlack.start({ postsPerChannelPerSecond: 1 });
    onTestFinished(() => fake.close());
    const client = new WebClient(FAKE_BOT.token, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const channel = fake.createChannel({ name: "general" });
    const other = fake.createChannel({ name: "random" });
    await client.chat.postMessage({ channel: channel.id, text: "one" });
    const refused = await client.chat
      .postMessage({ channel: channel.id, text: "two" })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "slack_webapi_rate_limited_error", retryAfter: 1 });
    await client.chat.postMessage({ channel: other.id, text: "elsewhere" });
    expect(fake.messages(channel.id).map((m) => m.text)).toEqual(["one"]);
    expect(fake.postsRateLimited).toBe(1);
    await new Promise((r) => setTimeout(r, 1_000));
    await client.chat.postMessage({ channel: channel.id, text: "three" });
    expect(fake.messages(channel.id).map((m) => m.text)).toEqual(["one", "three"]);
  });

  it("enforces nothing by default", async () => {
    const fake = await FakeSlack.start();
    onTestFinished(() => fake.close());
    const client = new WebClient(FAKE_BOT.token, { slackApiUrl: fake.apiUrl });
    const channel = fake.createChannel();
    for (const text of ["a", "b", "c"])
      await client.chat.postMessage({ channel: channel.id, text });
    expect(fake.messages(channel.id).map((m) => m.text)).toEqual(["a", "b", "c"]);
  });
});
