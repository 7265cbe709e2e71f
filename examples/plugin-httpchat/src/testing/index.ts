/**
 * `@herald/example-plugin-httpchat/testing`: a fake HTTP chat API ({@link FakeHttpChat}) and the
 * channel's `contractHarness` for the shared contract suite (`@herald/plugin-qa-channel/contract`).
 *
 * @example
 * import { FAKE_BOT, FakeHttpChat } from "@herald/example-plugin-httpchat/testing";
 * const api = await FakeHttpChat.start(); // config: { baseUrl: api.url }, token FAKE_BOT.token
 *
 * @packageDocumentation
 */
export {
  ALICE,
  FAKE_BOT,
  FakeHttpChat,
  type FakeHttpChatBot,
  type FakeHttpChatEvent,
  type FakeHttpChatUser,
  OTHER_BOT,
  SECOND_BOT,
  signedHeaders,
} from "./FakeHttpChat.ts";
export { contractHarness, type HttpChatConnection } from "./harness.ts";
