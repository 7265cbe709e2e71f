/**
 * `@herald/plugin-sdk/testing`: what every fake platform server needs — a loopback HTTP server
 * with scripted faults ({@link FakePlatformServer}), a recorder of what the platform shows
 * ({@link VisibleState}), crash-test child processes with failpoints, and the parts of
 * `@herald/core` a plugin's tests need to run a real runtime against their fake (plugins import
 * only `@herald/plugin-sdk/*` and their platform SDK, so core reaches them here), and the types
 * of the contract harness a plugin hands the shared suite ({@link ContractHarness}).
 *
 * Runner-free: nothing here imports a test runner, so these fakes work under Vitest, `node:test`
 * or a plain script. The Vitest suites are elsewhere: the threaded activity log's cases in
 * `@herald/plugin-sdk/contract`, the shared contract suite every adapter must pass in
 * `@herald/plugin-qa-channel/contract`.
 *
 * @packageDocumentation
 */

// Runtime pieces from core, for tests that run a real runtime against a fake platform.
export type {
  DeliveryOptions,
  DurableSendIntent,
  IntentStatus,
  LiveOptions,
  LiveSession,
  MessageReceiveContext,
  MessageRuntime,
  MessageRuntimeOptions,
  MessageStateStore,
  ReceiveAckSignal,
  ReceiveOutcome,
  ReceiveRuntimeOptions,
  ReceiveTicket,
  SqliteStateStoreOptions,
} from "@herald/core";
export {
  CORE_MUTATIONS,
  type CoreMutation,
  createMessageRuntime,
  DeliveryCancelledError,
  DeliveryFailedError,
  DeliveryPendingError,
  isHeldForOperator,
  SqliteStateStore,
  setCoreMutations,
} from "@herald/core";
// The suite's time scale, depth (gate or full) and teardown registry (one copy, in core's
// testing kit).
export {
  endTracked,
  FULL_SUITE_ENV,
  fullSuite,
  gateOrFull,
  scaledMs,
  TEST_TIME_SCALE_ENV,
  testTimeScale,
  trackChild,
  trackCloser,
  trackedCount,
} from "@herald/core/testing";
// The HTTP toolkit fakes are built on.
export { type Context, Hono } from "hono";
export { streamSSE } from "hono/streaming";
export { CHROMIUM_LAUNCH_OPTIONS, CHROMIUM_PATH, chromiumAvailable } from "./browser.ts";
export { captureLogger, serializeLogEntry } from "./captureLogger.ts";
// The contract harness types (every export of the module is a type).
export type * from "./contractHarness.ts";
export { eventually } from "./eventually.ts";
export {
  type FakeCallRecord,
  type FakeErrorAnswer,
  type FakePlatformEnv,
  FakePlatformServer,
  type FakePlatformServerOptions,
  type FakePlatformWire,
  type FakeRouteHandler,
  PlatformFaults,
} from "./FakePlatformServer.ts";
export {
  type FakeSocketClose,
  FakeSocketConnection,
  type FakeSocketFrame,
  FakeSocketServer,
  type FakeSocketServerOptions,
} from "./FakeSocketServer.ts";
export {
  type FakeExchange,
  type FakeTrafficCheck,
  type FakeTrafficViolation,
  fakeTrafficCheck,
  formatFakeTrafficViolation,
  isScriptedAnswer,
  scriptedAnswer,
  setFakeTrafficCheck,
  takeFakeTrafficViolations,
} from "./fakeTraffic.ts";
export {
  FaultQueue,
  type FaultTarget,
  type PlatformFault,
  type PlatformOp,
  retryAfterHeader,
} from "./faults.ts";
export {
  type ChildResult,
  type FailpointAction,
  failpointsEnv,
  type RunChildOptions,
  runNodeChild,
} from "./process.ts";
export {
  createAdapterWithSecrets,
  type MalformedSecretCase,
  type SecretCheckResult,
  secretShapeProblems,
} from "./secretCheck.ts";
export { createReceiverSink } from "./sink.ts";
export {
  openTestRun,
  TEST_RUN_DELIVERY,
  type TestRun,
  type TestRunOptions,
} from "./testRun.ts";
export {
  type MessageFilter,
  type PostInput,
  type VisibleAuthor,
  type VisibleChange,
  type VisibleMessage,
  VisibleState,
  type VisibleStateOptions,
} from "./VisibleState.ts";
