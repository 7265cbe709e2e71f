/**
 * `@herald/plugin-googlechat/testing`: a fake Google Chat for tests ({@link FakeGoogleChat}:
 * the Chat API with requestId / messageId semantics, real thread rules, per-space write limits
 * answering 429 without Retry-After, signed event delivery to the webhook in both audience
 * modes, fault injection), and the channel's `contractHarness` for the shared contract suite.
 *
 * @example
 * import { FAKE_ACCESS_TOKEN, FakeGoogleChat } from "@herald/plugin-googlechat/testing";
 * const chat = await FakeGoogleChat.start();
 * // config: { rootUrl: chat.rootUrl, credentials: { type: "access_token" } }, token: FAKE_ACCESS_TOKEN
 *
 * @packageDocumentation
 */
export {
  ALICE,
  FAKE_ACCESS_TOKEN,
  FAKE_APP,
  FAKE_ENDPOINT_URL,
  FAKE_PROJECT_NUMBER,
  type FakeDelivery,
  FakeGoogleChat,
  type FakeGoogleChatOptions,
  OTHER_APP,
  SECOND_ACCESS_TOKEN,
  SECOND_APP,
} from "./FakeGoogleChat.ts";
export type { AfterStoreFault, FakeCreateRequest } from "./fakeRoutes.ts";
export {
  FakeChatStore,
  type FakeChatUser,
  type FakeSpace,
  type FakeStoredMessage,
} from "./fakeStore.ts";
export {
  type FakeAudience,
  FakeChatTokens,
  FakeSigningKey,
  type FakeTokenClaims,
} from "./fakeTokens.ts";
export { GRPC_STATUS, googleError, googleErrorBody } from "./fakeWire.ts";
export { type GoogleChatRun, type GoogleChatRunOptions, openGoogleChatRun } from "./fixture.ts";
export {
  contractHarness,
  displayedText,
  type GoogleChatConnection,
  type GoogleChatContractHarness,
  type GoogleChatContractPlatform,
  type GoogleChatHarnessOptions,
  googleChatContractPlatform,
  googleChatHarness,
  testConfig,
  visibleOf,
} from "./harness.ts";
