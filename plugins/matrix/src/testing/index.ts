/**
 * `@herald/plugin-matrix/testing`: a fake Matrix homeserver for tests ({@link FakeHomeserver}:
 * login, whoami, sends and redactions with Synapse's transaction-id semantics, edits, `/sync`
 * with limited timelines and `/messages`, rate limits, fault injection) and the channel's
 * `contractHarness` for the shared contract suite.
 *
 * @example
 * import { FAKE_BOT, FakeHomeserver } from "@herald/plugin-matrix/testing";
 * const homeserver = await FakeHomeserver.start();
 * // config: { homeserverUrl: homeserver.url, deviceId: FAKE_BOT.deviceId }, token: FAKE_BOT.accessToken
 *
 * @packageDocumentation
 */
export {
  ALICE,
  FAKE_BOT,
  FakeHomeserver,
  type FakeHomeserverOptions,
  matrixErrorBody,
  OTHER_FAKE_BOT,
  SECOND_FAKE_BOT,
} from "./FakeHomeserver.ts";
export { FakeRooms, type FakeRoomsOptions } from "./fakeRooms.ts";
export type { AfterApplyFault, FakeEvent, FakeMatrixUser, FakeRoom } from "./fakeTypes.ts";
export {
  connectionOf,
  contractHarness,
  type MatrixConnection,
  type MatrixContractHarness,
  type MatrixContractPlatform,
  matrixContractPlatform,
  matrixHarness,
  testConfig,
  visibleMessages,
} from "./harness.ts";
