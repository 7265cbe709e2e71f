/**
 * `@herald/core/contract`: the Vitest suites a store or channel implementation runs against
 * itself — the state store conformance suite ({@link describeStateStoreConformance}) and the
 * threaded activity log's end-to-end cases ({@link describeActivityLogSuite}). This is the only
 * core entry that imports `vitest` (an optional peer dependency); `@herald/core/testing` runs in
 * any test runner or none.
 *
 * @packageDocumentation
 */
export {
  type ActivityLogSuiteHarness,
  describeActivityLogSuite,
  type SuiteVisibleMessage,
  type SuiteWhere,
} from "../activity/testing/suite.ts";
export {
  describeStateStoreConformance,
  type StateStoreHarness,
} from "../testing/storeConformance.ts";
