/**
 * `@herald/plugin-matrix/testing`: a fake Matrix homeserver for tests ({@link FakeHomeserver}:
 * login, whoami, sends and redactions with a server kind's transaction-id retention — Synapse,
 * Dendrite, Conduit — and restarts, `unsigned.transaction_id` for the sending device, edits,
 * `/sync` with limited timelines and `/messages` filtered like Synapse's, rate limits on any
 * status, fault injection) and the channel's
 * `contractHarness` for the shared contract suite.
 *
 * @example
 * import { FAKE_BOT, FakeHomeserver } from "@herald/plugin-matrix/testing";
 * const homeserver = await FakeHomeserver.start();
 * // config: { homeserverUrl: homeserver.url, deviceId: FAKE_BOT.deviceId }, token: FAKE_BOT.accessToken
 *
 * @packageDocumentation
 */

export { E2eeUser, type UserSeenEvent } from "./e2eeUser.ts";
export {
  ALICE,
  FAKE_BOT,
  FakeHomeserver,
  type FakeHomeserverOptions,
  matrixErrorBody,
  OTHER_FAKE_BOT,
  SECOND_FAKE_BOT,
} from "./FakeHomeserver.ts";
export { FakeKeys } from "./fakeKeys.ts";
export { FakeRooms, type FakeRoomsOptions } from "./fakeRooms.ts";
export {
  type FakeServerKind,
  FakeTransactions,
  TXN_RETENTION,
  type TxnRetention,
} from "./fakeTransactions.ts";
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
