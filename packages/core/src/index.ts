/**
 * `@herald/core`: the durable message lifecycle of herald — message domain, state store,
 * send / receive / live lifecycles.
 *
 * @packageDocumentation
 */
export * from "./errors.ts";
export { FailpointError, failpoint, resetFailpoints } from "./failpoint.ts";
export * from "./message/index.ts";
export * from "./state/index.ts";
