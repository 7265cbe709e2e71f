/**
 * `@herald/plugin-discord/testing`: a fake Discord for tests ({@link FakeDiscord}: REST routes
 * with enforced nonces, `message_reference`, content and embed limits, per-channel buckets with
 * `X-RateLimit-*` headers, the 429 shapes Discord and its edge send, threads, visible state and
 * fault injection) and the channel's
 * `contractHarness` for the shared contract suite.
 *
 * @example
 * import { FAKE_BOT, FakeDiscord } from "@herald/plugin-discord/testing";
 * const discord = await FakeDiscord.start();
 * // config: { apiBase: discord.apiBase }, token: FAKE_BOT.token
 *
 * @packageDocumentation
 */
export {
  ALICE,
  FAKE_BOT,
  FakeDiscord,
  type FakeDiscordOptions,
  OTHER_FAKE_BOT,
  SECOND_FAKE_BOT,
} from "./FakeDiscord.ts";
export { componentInteraction, validateComponents } from "./fakeActions.ts";
export { directChannelOf } from "./fakeDirect.ts";
export { postWithFile } from "./fakeFiles.ts";
export {
  edgeRateLimitResponse,
  type FakeRateLimitShape,
  rateLimitFault,
} from "./fakeRateLimits.ts";
export { discordReactionsOn, setDiscordReaction } from "./fakeReactions.ts";
export type {
  FakeBotAccount,
  FakeBucketLimits,
  FakeChannel,
  FakeMessageEvent,
  FakeStoredMessage,
  FakeUser,
} from "./fakeTypes.ts";
export {
  contractHarness,
  type DiscordConnection,
  type DiscordContractHarness,
  type DiscordContractPlatform,
  type DiscordHarnessOptions,
  discordContractPlatform,
  discordHarness,
  testConfig,
} from "./harness.ts";
