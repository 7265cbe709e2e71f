/**
 * The QA channel's native stream against the real QA platform: `finish` never doubles the text
 * although the platform's stop appends (C24), replaces it when what is shown is uncertain, and
 * can be repeated (recovery finishes a stream again).
 */
import type { MessageSendContext } from "@herald/plugin-sdk/channel-message";
import { captureLogger } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createQaAdapter } from "./index.ts";
import { testConfig } from "./testing/harness.ts";
import { DEFAULT_QA_BOT, QaPlatform } from "./testing/platform/QaPlatform.ts";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup() {
  const platform = await QaPlatform.start();
  cleanup.push(() => platform.close());
  const chat = platform.createChat({ type: "direct" }).id;
  const config = testConfig({
    baseUrl: platform.url,
    token: DEFAULT_QA_BOT.token,
    maxLength: 4_000,
    delivery: "idempotent",
    nativeStream: true,
  });
  const stream = createQaAdapter(config, DEFAULT_QA_BOT.token).live?.stream;
  if (!stream) throw new Error("no native stream with nativeStream: true");
  const ctx = {
    channel: "qa",
    attempt: 1,
    idempotencyKey: "s-1",
    unitIdempotencyKey: "s-1:0",
    signal: new AbortController().signal,
    log: captureLogger([]),
    message: {
      id: "m-1",
      channel: "qa",
      direction: "outbound",
      target: { kind: "direct", id: chat },
      body: { markdown: "" },
    },
  } as unknown as MessageSendContext;
  const texts = () => platform.state.messages({ chat }).map((m) => m.text);
  return { stream, ctx, texts };
}

describe("qa native stream", () => {
  it("stops with only the unshown rest, and a repeated finish changes nothing", async () => {
    const { stream, ctx, texts } = await setup();
    const part = await stream.begin(ctx, "Hello ");
    await stream.append(ctx, part, "big ");
    const final = { markdown: "Hello big world", shown: "Hello big ", shownExact: true };
    await stream.finish(ctx, part, final);
    expect(texts()).toEqual(["Hello big world"]);
    await stream.finish(ctx, part, final);
    expect(texts()).toEqual(["Hello big world"]);
  });

  it("replaces the text when what the stream shows is uncertain or was rewritten", async () => {
    const { stream, ctx, texts } = await setup();
    const part = await stream.begin(ctx, "Hello ");
    await stream.append(ctx, part, "there ");
    await stream.finish(ctx, part, { markdown: "Hi there", shown: "Hello ", shownExact: false });
    expect(texts()).toEqual(["Hi there"]);
  });

  it("a stop after the stream was stopped is refused by the platform as stream_stopped", async () => {
    const { stream, ctx } = await setup();
    const part = await stream.begin(ctx, "Done");
    await stream.finish(ctx, part);
    await expect(stream.append(ctx, part, " more")).rejects.toThrow(/stream_stopped/);
  });
});
