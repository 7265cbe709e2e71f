/**
 * `@herald/plugin-slack/testing`: a fake Slack Web API for tests ({@link FakeSlack}: channels,
 * DMs, threads, visible state, message metadata, history read and post limits, fault injection), and the
 * channel's `contractHarness` for the shared contract suite.
 *
 * @example
 * import { FAKE_BOT, FakeSlack } from "@herald/plugin-slack/testing";
 * const slack = await FakeSlack.start();
 * // config: { slackApiUrl: slack.apiUrl }, token: FAKE_BOT.token
 *
 * @packageDocumentation
 */
export {
  ALICE,
  FAKE_BOT,
  FakeSlack,
  type FakeSlackOptions,
  OTHER_FAKE_BOT,
  SECOND_FAKE_BOT,
} from "./FakeSlack.ts";
export { directChannelOf, ephemeralsOf, type FakeEphemeral } from "./fakeDirect.ts";
export {
  EventSender,
  type FakeDelivery,
  type FakeWebhook,
  signSlackRequest,
} from "./fakeEvents.ts";
export { reactionsOn } from "./fakeReactions.ts";
export { type FakeAppToken, type FakeRetryReason, FakeSocketMode } from "./fakeSocket.ts";
export type {
  FakeChannel,
  FakePostRecord,
  FakeSlackBot,
  FakeSlackMessage,
  FakeSlackUser,
} from "./fakeTypes.ts";
export {
  CONTRACT_HISTORY_INTERVAL_MS,
  contractHarness,
  type SlackConnection,
  type SlackContractHarness,
  type SlackContractPlatform,
  type SlackHarnessOptions,
  slackContractPlatform,
  slackHarness,
  testConfig,
} from "./harness.ts";
