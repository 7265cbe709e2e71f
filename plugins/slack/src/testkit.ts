/**
 * Test setup shared by this package's tests (not exported): a fresh {@link FakeSlack}, the real
 * adapter against it and a test herald on an in-memory SQLite store. Runner-free (plugins
 * import only the SDK and their platform SDK outside test files): the caller passes the hook
 * that tears it down.
 *
 * @module
 */
import type { ChannelMessageAdapter, ChannelReceiver } from "@herald/plugin-sdk/channel-message";
import { openTestRun, type TestRun, type TestRunOptions } from "@herald/plugin-sdk/testing";
import type { SlackConfigInput } from "./config.ts";
import { createSlackAdapter, createSlackReceiver } from "./index.ts";
import { FAKE_BOT, FakeSlack, type FakeSlackOptions } from "./testing/FakeSlack.ts";
import { testConfig } from "./testing/harness.ts";

/** A running fake, adapter and herald. */
export type SlackTestRun = TestRun & {
  fake: FakeSlack;
  adapter: ChannelMessageAdapter;
  /** The Events API receiver, connected to the fake as {@link FAKE_BOT}'s Request URL. */
  receiver: ChannelReceiver & { webhook(request: Request): Promise<Response> };
};

/** Registers a teardown for the end of the current test (Vitest's `onTestFinished`). */
export type OnFinished = (teardown: () => Promise<void>) => void;

/**
 * Starts a fake, the adapter (config `extra` over the contract test config) and a herald, closed
 * through `onFinished` (pass Vitest's `onTestFinished`).
 */
export async function openSlackRun(
  onFinished: OnFinished,
  extra: SlackConfigInput = {},
  fakeOptions: FakeSlackOptions = {},
  runOptions: Pick<TestRunOptions, "clock" | "handler" | "receive"> = {},
): Promise<SlackTestRun> {
  const fake = await FakeSlack.start(fakeOptions);
  const config = testConfig(
    {
      apiUrl: fake.apiUrl,
      token: FAKE_BOT.token,
      signingSecret: FAKE_BOT.signingSecret,
      unknownSendPolicy: "hold",
    },
    extra,
  );
  const adapter = createSlackAdapter(config, {
    token: FAKE_BOT.token,
    secrets: [FAKE_BOT.signingSecret],
  });
  const run = await openTestRun({ adapters: [adapter], accountId: "main", ...runOptions });
  const receiver = createSlackReceiver(
    config,
    run.sink("slack", "main"),
    { signingSecret: FAKE_BOT.signingSecret },
    runOptions.clock ? { clock: runOptions.clock } : {},
  ) as SlackTestRun["receiver"];
  fake.events.connect(FAKE_BOT, (request) => receiver.webhook(request));
  onFinished(async () => {
    await run.close();
    await fake.close();
  });
  return Object.assign(run, { fake, adapter, receiver });
}
