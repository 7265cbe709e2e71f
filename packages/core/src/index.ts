/**
 * `@herald/core`: the durable message lifecycle of herald — message domain, state store,
 * send / receive / live lifecycles.
 *
 * @packageDocumentation
 */
export type * from "./adapter/types.ts";
export * from "./errors.ts";
export { FailpointError, failpoint, resetFailpoints } from "./failpoint.ts";
export { type HeraldLogger, silentLogger } from "./logger.ts";
export * from "./message/index.ts";
export * from "./state/index.ts";
