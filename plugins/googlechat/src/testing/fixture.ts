/**
 * A Google Chat test run in one call: a {@link FakeGoogleChat}, the real adapter (the real
 * `@googleapis/chat` client with a preset token) and a real herald runtime on in-memory SQLite,
 * optionally with the webhook receiver connected to the fake.
 *
 * @module
 */
import type { ChannelMessageAdapter, ChannelReceiver } from "@herald/plugin-sdk/channel-message";
import { openTestRun, type TestRun, type TestRunOptions } from "@herald/plugin-sdk/testing";
import { accessTokenCredentials } from "../auth.ts";
import type { GoogleChatConfigInput } from "../config.ts";
import {
  createGoogleChatAdapter,
  createGoogleChatReceiver,
  GOOGLE_CHAT_CHANNEL_ID,
} from "../index.ts";
import {
  FAKE_ACCESS_TOKEN,
  FAKE_APP,
  FakeGoogleChat,
  type FakeGoogleChatOptions,
} from "./FakeGoogleChat.ts";
import { type GoogleChatConnection, testConfig } from "./harness.ts";

/** Options of {@link openGoogleChatRun}. */
export type GoogleChatRunOptions = {
  fake?: FakeGoogleChatOptions;
  /** Config over the test config (`testConfig`). */
  config?: Record<string, unknown>;
  /** Start the webhook receiver and connect it to the fake. @defaultValue false */
  receiver?: boolean;
  run?: Omit<TestRunOptions, "adapters">;
};

/** A running fake, adapter and runtime. */
export type GoogleChatRun = {
  fake: FakeGoogleChat;
  adapter: ChannelMessageAdapter;
  run: TestRun;
  connection: GoogleChatConnection;
  receiver?: ChannelReceiver;
  close(): Promise<void>;
};

/** Opens a {@link GoogleChatRun}; close it when done. */
export async function openGoogleChatRun(
  options: GoogleChatRunOptions = {},
): Promise<GoogleChatRun> {
  const fake = await FakeGoogleChat.start(options.fake);
  const connection: GoogleChatConnection = {
    rootUrl: fake.rootUrl,
    accessToken: FAKE_ACCESS_TOKEN,
    appUser: FAKE_APP.name,
    audience: fake.audience,
    certsUrls: fake.certsUrls,
  };
  const config = testConfig(connection, (options.config ?? {}) as GoogleChatConfigInput);
  const adapter = createGoogleChatAdapter(config, accessTokenCredentials(FAKE_ACCESS_TOKEN));
  const run = await openTestRun({ adapters: [adapter], accountId: "main", ...options.run });
  let receiver: ChannelReceiver | undefined;
  if (options.receiver) {
    receiver = createGoogleChatReceiver(config, run.sink(GOOGLE_CHAT_CHANNEL_ID, "main"));
    const webhook = receiver.webhook?.bind(receiver);
    if (webhook) fake.connectWebhook(webhook);
  }
  return {
    fake,
    adapter,
    run,
    connection,
    ...(receiver ? { receiver } : {}),
    async close() {
      await run.close();
      await fake.close();
    },
  };
}
