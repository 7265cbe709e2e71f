/**
 * `@herald/gateway`: hosts channel plugins in one process — the durable message runtime, the
 * receivers, webhooks, `/healthz` and `/metrics` — and gives bot authors `onMessage(turn)`.
 * The `herald` CLI ships as this package's bin.
 *
 * @packageDocumentation
 */
export type { AccountHealth, SupervisionOptions } from "./accounts/AccountSupervisor.ts";
export type { BotTurn, BotTurnOptions, ReplyOptions } from "./bot/BotTurn.ts";
export {
  type FailureNoticeOptions,
  failureNoticeKey,
  postFailureNotice,
} from "./bot/failureNotice.ts";
export {
  type BotAction,
  type BotActionHandler,
  type BotReaction,
  type BotReactionHandler,
  DEFAULT_MAX_INBOUND_FILE_BYTES,
  type InboundFile,
  type OutboundFile,
  type ReplyContent,
} from "./bot/features.ts";
export { ConfigError, type ConfigIssue } from "./config/errors.ts";
export { CONFIG_FILE_NAMES, type LoadedConfig, loadConfig, parseConfig } from "./config/load.ts";
export { type HeraldConfig, heraldConfigSchema } from "./config/schema.ts";
export {
  type BotEventHandler,
  type BotHandler,
  createGateway,
  type Gateway,
  type GatewayOptions,
} from "./gateway.ts";
export { type HeraldConfigInput, herald } from "./herald.ts";
export { bindHttpListener, type HttpListener, type RequestListener } from "./http/listener.ts";
export { GatewayMetrics } from "./http/metrics.ts";
export { createHttpApp } from "./http/server.ts";
export { type LoadedChannel, loadPlugins } from "./plugins/loadPlugins.ts";
export { SecretReader } from "./plugins/secrets.ts";
export { type OpenStoreOptions, openStore } from "./store/openStore.ts";
export { StoreLockedError } from "./store/storeLock.ts";
