/**
 * `@herald/plugin-sdk/contract`: Vitest suites for channel plugins' own tests. Today: the
 * threaded activity log's end-to-end cases ({@link describeActivityLogSuite}) for any
 * thread-capable channel. This is the only plugin-sdk entry that imports `vitest` (an optional
 * peer dependency); `@herald/plugin-sdk/testing` runs in any test runner or none. The shared
 * adapter contract suite is `@herald/plugin-qa-channel/contract`.
 *
 * @packageDocumentation
 */
export { type ActivityLogSuiteHarness, describeActivityLogSuite } from "@herald/core/contract";
