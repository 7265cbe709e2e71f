/**
 * `@herald/plugin-qa-channel/testing`: the QA platform (a real loopback chat platform with a
 * web chat page and fault injection) and the QA channel's `contractHarness`.
 *
 * @example
 * import { QaPlatform } from "@herald/plugin-qa-channel/testing";
 * const platform = await QaPlatform.start({ port: 4610 });
 * console.log(`open ${platform.url}/ and chat with your bot`);
 *
 * @packageDocumentation
 */
export {
  contractHarness,
  OTHER_QA_BOT,
  QA_GUARANTEES,
  type QaConnection,
  qaContractPlatform,
  qaHarness,
  SECOND_QA_BOT,
  testConfig,
} from "./harness.ts";
export type { QaBot, QaChat } from "./platform/platformTypes.ts";
export {
  DEFAULT_QA_BOT,
  QA_PLATFORM_MAX_TEXT,
  QaPlatform,
  type QaPlatformOptions,
  QaPortInUseError,
} from "./platform/QaPlatform.ts";
export { webChatPage } from "./platform/webChatPage.ts";
