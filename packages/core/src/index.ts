/**
 * `@herald/core`: the durable message lifecycle of herald — message domain, state store,
 * send / receive / live lifecycles.
 *
 * @packageDocumentation
 */
export * from "./activity/index.ts";
export type * from "./adapter/features.ts";
export { SEND_HOOK_TIMEOUT_MS } from "./adapter/hooks.ts";
export {
  type AdapterRegistration,
  AdapterRegistry,
  UnknownAccountError,
} from "./adapter/registry.ts";
export type * from "./adapter/types.ts";
export { type DeliveryEvent, DeliveryWorker } from "./delivery/DeliveryWorker.ts";
export type { DeliveryOptions } from "./delivery/deps.ts";
export {
  DeliveryCancelledError,
  DeliveryExpiredError,
  DeliveryFailedError,
  DeliveryPendingError,
  IdempotencyConflictError,
} from "./delivery/errors.ts";
export {
  defaultRateLimitRoute,
  RateLimitScheduler,
  type RateLimitSchedulerOptions,
  type RateLimitScopeKind,
  rateLimitCall,
} from "./delivery/RateLimitScheduler.ts";
export type { RecoveryReport } from "./delivery/recovery.ts";
export * from "./errors.ts";
export { FailpointError, failpoint, resetFailpoints } from "./failpoint.ts";
export * from "./live/index.ts";
export { type HeraldLogger, silentLogger } from "./logger.ts";
export * from "./message/index.ts";
export {
  CORE_MUTATIONS,
  type CoreMutation,
  coreMutation,
  setCoreMutations,
} from "./mutation.ts";
export * from "./receive/index.ts";
export {
  MIN_REDACTED_LENGTH,
  REDACTED,
  redactSecrets,
  redactUrls,
  SecretRedactor,
  secretForms,
} from "./redact.ts";
export {
  createMessageRuntime,
  type MessageRuntime,
  type MessageRuntimeOptions,
} from "./runtime.ts";
export type {
  AttachmentFetchRequest,
  ChannelAddress,
  EphemeralSendRequest,
  FeatureApi,
  HistoryRequest,
  ReactionRequest,
} from "./send/features.ts";
export type { SendApi, SendContext, SendOptions } from "./send/SendRuntime.ts";
export { sleep } from "./sleep.ts";
export * from "./state/index.ts";
export * from "./turn/index.ts";
