/**
 * `@herald/core/testing`: the state store conformance suite, a scripted fake platform with its
 * adapter (in process or over HTTP), and fixtures.
 *
 * @packageDocumentation
 */
export {
  type ActivityLogSuiteHarness,
  describeActivityLogSuite,
  type SuiteVisibleMessage,
  type SuiteWhere,
} from "../activity/testing/suite.ts";
export * from "./fakeAdapter.ts";
export * from "./fakePlatform.ts";
export * from "./fakePlatformServer.ts";
export * from "./fixtures.ts";
export { describeStateStoreConformance, type StateStoreHarness } from "./storeConformance.ts";
