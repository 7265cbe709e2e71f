/**
 * `@herald/plugin-telegram/testing`: a fake Telegram Bot API for tests ({@link FakeTelegram}:
 * chats, forum topics, visible state, `getUpdates` and webhook delivery, fault injection), Bot
 * API update fixtures, and the channel's `contractHarness` for the shared contract suite.
 *
 * @example
 * import { FAKE_BOT, FakeTelegram } from "@herald/plugin-telegram/testing";
 * const telegram = await FakeTelegram.start();
 * // config: { apiRoot: telegram.apiRoot }, token: FAKE_BOT.token
 *
 * @packageDocumentation
 */
export {
  ALICE,
  FAKE_BOT,
  FakeTelegram,
  type FakeTelegramOptions,
  OTHER_FAKE_BOT,
} from "./FakeTelegram.ts";
export { addUserFile } from "./fakeFiles.ts";
export type { FakeTelegramLimits } from "./fakeLimits.ts";
export { telegramReactionsOn } from "./fakeReactions.ts";
export type { FakeBotAccount, FakeChat, FakeStoredMessage, FakeUser } from "./fakeTypes.ts";
export { type FakeUpdate, type FakeWebhook, UpdateQueue } from "./fakeUpdates.ts";
export * as updateFixtures from "./fixtures.ts";
export {
  CONTRACT_WEBHOOK_SECRET,
  contractHarness,
  SECOND_FAKE_BOT,
  type TelegramConnection,
  type TelegramContractHarness,
  type TelegramContractPlatform,
  type TelegramHarnessOptions,
  telegramContractPlatform,
  telegramHarness,
  testConfig,
} from "./harness.ts";
