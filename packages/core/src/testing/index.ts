/**
 * `@herald/core/testing`: a scripted fake platform with its adapter (in process or over HTTP),
 * and fixtures. Runner-free: nothing here imports a test runner (the Vitest suites are in
 * `@herald/core/contract`).
 *
 * @packageDocumentation
 */
export * from "./bulkIntents.ts";
export * from "./failingWrites.ts";
export * from "./fakeAdapter.ts";
export * from "./fakePlatform.ts";
export * from "./fakePlatformServer.ts";
export * from "./fixtures.ts";
export * from "./suiteDepth.ts";
export * from "./teardown.ts";
export * from "./timeScale.ts";
