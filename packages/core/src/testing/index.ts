/**
 * `@herald/core/testing`: the state store conformance suite and fixtures.
 *
 * @packageDocumentation
 */
export * from "./fixtures.ts";
export { describeStateStoreConformance, type StateStoreHarness } from "./storeConformance.ts";
