/**
 * `@herald/plugin-sdk/channel-message`: everything a channel plugin needs, and nothing else
 * (seed `message-lifecycle.md`, "Public SDK reduction"). Plugins import only this subpath,
 * `@herald/plugin-sdk/testing` in their tests, and their own platform SDK.
 *
 * @packageDocumentation
 */

// Adapter surface, message domain and receipts (stable part of @herald/core).
export type {
  ChannelMessage,
  ChannelMessageAdapter,
  ClassifiedFailure,
  CursorBatch,
  CursorItem,
  CursorTracker,
  DeliveryFailure,
  DeliveryFailureKind,
  DeliveryFailureReason,
  DispatchEvidence,
  DurableSendIntent,
  InboundEvent,
  InboundEventType,
  InboundIgnore,
  LiveCancelReason,
  LiveMessageState,
  LiveMessageUpdate,
  LiveStreamFinal,
  MessageActor,
  MessageAttachment,
  MessageBody,
  MessageCapabilities,
  MessageDurabilityPolicy,
  MessageEventClass,
  MessageLiveAdapter,
  MessageLiveStreamAdapter,
  MessageNormalizeContext,
  MessageOrigin,
  MessageOriginAdapter,
  MessagePreflightResult,
  MessageQuote,
  MessageReceipt,
  MessageReceiptPart,
  MessageReceiveAdapter,
  MessageReceiveContext,
  MessageRecipient,
  MessageRelation,
  MessageRenderAdapter,
  MessageSendAdapter,
  MessageSendContext,
  MessageTarget,
  MessageThreadAnchor,
  NormalizeResult,
  RateLimitFeedback,
  RateLimitOperation,
  RateLimitRouteInput,
  RateLimitScope,
  ReceiptConflictDetail,
  ReceiveAckPolicy,
  ReceiveAckSignal,
  ReceiveOutcome,
  ReceiveSource,
  ReceiveTicket,
  ReconcileDeclaration,
  ReconcileResult,
  RenderedMessageBatch,
  RenderedMessageUnit,
  ReplyAddress,
  ReplyPlacement,
  WatermarkId,
  WatermarkTracker,
} from "@herald/core";
// Shared plugin utilities (DESIGN §8 "Shared utilities"): one tested copy of each.
export {
  type ChannelOptions,
  cardFallbackMarkdown,
  gatewayFailureOrigin,
  HeraldError,
  IdempotencyConflictError,
  ignore,
  joinIssuePath,
  type MessageCard,
  type MessageCardAction,
  type MessageCardField,
  MIN_REDACTED_LENGTH,
  mergeReceipts,
  NotImplementedError,
  parseInbound,
  placeReply,
  REDACTED,
  ReceiveValidationError,
  receiptFromParts,
  redactSecrets,
  SEND_HOOK_TIMEOUT_MS,
  SecretRedactor,
  secretForms,
  shouldDropHeraldEcho,
  sleep,
  unitIdempotencyKey,
  unshownStreamText,
  withCardFallback,
} from "@herald/core";
// zod, for `configSchema` and payload validation (plugins do not depend on zod directly).
export { z } from "zod";
// The plugin shape.
export {
  type ChannelAccount,
  type ChannelAccountDeps,
  ChannelAccountError,
  type ChannelIdentity,
  type ChannelReceiver,
  isChannelAccountError,
  type ReceiverHealth,
  type ReceiverState,
  receiverHealth,
} from "./account.ts";
export {
  type CatchUpLiveMessage,
  type CatchUpReceiver,
  type CatchUpReceiverOptions,
  type CatchUpRunContext,
  type ConversationPositions,
  type ConversationPositionsOptions,
  conversationPositions,
  createCatchUpReceiver,
} from "./catchUp.ts";
export { openChannelAccount } from "./openAccount.ts";
export {
  type ChannelPlugin,
  type ChannelPluginDeps,
  type ChannelReceiverSink,
  defineChannelMessageAdapter,
  defineChannelPlugin,
} from "./plugin.ts";
export {
  createRedelivery,
  type Redelivery,
  type RedeliveryOptions,
} from "./redelivery.ts";
// Ids that need their container (Slack channel + ts, Matrix room + event).
export {
  composeRef,
  MalformedRefError,
  type ParsedRef,
  type ParseRefOptions,
  parseRef,
} from "./ref.ts";
// Render helpers: markdown AST, UTF-16 lengths, chunkers, text + entities, captions, dialects.
export {
  type AllowedMentions,
  bodyTree,
  type CaptionSplit,
  type ChunkEntitiesOptions,
  type ChunkMarkdownOptions,
  type ChunkTextOptions,
  type CommonMarkOptions,
  chunkMarkdown,
  chunkText,
  chunkTextWithEntities,
  codePointLength,
  type DiscordDialectOptions,
  discordDialect,
  discordMentions,
  type EntityChunk,
  EntityRangeError,
  escapeDiscord,
  escapeSlack,
  extractMentions,
  type Grapheme,
  graphemeBoundaryAtOrBefore,
  graphemes,
  isSafeUrl,
  type LengthMeasure,
  literalTree,
  type MarkdownChunk,
  type MarkdownDialect,
  type MatrixRenderOptions,
  type MatrixTextContent,
  type MdastContent,
  type MdastNode,
  type MdastPhrasingContent,
  type MdastRoot,
  type Mention,
  type MentionSyntax,
  measureLength,
  mentionAllowed,
  mentionText,
  parseMarkdown,
  RenderLimitError,
  renderCommonMark,
  renderDiscord,
  renderGoogleChat,
  renderMatrix,
  renderMatrixHtml,
  renderPlainText,
  renderSlack,
  renderTextWithEntities,
  resolveReferences,
  type SlackDialectOptions,
  type SplitCaptionOptions,
  safeSlice,
  safeTree,
  serializeMarkdown,
  slackDialect,
  slackMentions,
  sliceTextWithEntities,
  splitCaption,
  type TextChunk,
  type TextEntity,
  type TextEntityRange,
  type TextWithEntities,
  type TruncateOptions,
  truncateText,
  utf8ByteLength,
  utf16Length,
} from "./render/index.ts";
// The seed's names for herald's types (seed "Receive context", "Send context"): documented aliases.
export type {
  DispatchResult,
  MessageLifecycleLogger,
  MessageRouteController,
  MessageSendIntent,
  MessageSessionController,
  ReceiveAckController,
  ReceiveDedupeResult,
  RecordResult,
  ResolvedInboundMessage,
} from "./seedNames.ts";
export { type HostResolver, isPublicAddress } from "./util/address-guard.ts";
export {
  classifyHttpAnswer,
  classifyPlatformError,
  HTTP_STATUS_KINDS,
  type HttpClassifyOptions,
  type PlatformAnswer,
  PlatformApiError,
} from "./util/api-error.ts";
export {
  ChannelOptionsError,
  channelOptionsOf,
  withChannelOptions,
} from "./util/channel-options.ts";
export { type VerifyCredentialsOptions, verifyCredentials } from "./util/credentials.ts";
export { heraldOriginOf, heraldOriginSchema } from "./util/herald-origin.ts";
export {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type HttpErrorBody,
  type HttpRequest,
} from "./util/http-client.ts";
export { type InboundMessageFields, inboundMessage } from "./util/inbound-message.ts";
export {
  fetchRemoteMedia,
  type RemoteMedia,
  RemoteMediaError,
  type RemoteMediaFailure,
  type RemoteMediaOptions,
} from "./util/media-fetch.ts";
export {
  classifyNetworkError,
  type NetworkFailure,
  type NetworkFailureReason,
  networkFailureOf,
  PlatformNetworkError,
} from "./util/network.ts";
export {
  type PlatformApiErrorClass,
  type PlatformErrorsOptions,
  type PlatformNetworkErrorClass,
  platformErrors,
} from "./util/platform-errors.ts";
export {
  PLATFORM_KEY_ALPHABETS,
  type PlatformKeyOptions,
  platformKey,
} from "./util/platform-key.ts";
export {
  type PollingReceiverOptions,
  type PollRequest,
  pollingReceiver,
} from "./util/polling-receiver.ts";
export { type RetryOptions, retry } from "./util/retry.ts";
export { formatRetryAfter, parseRetryAfter } from "./util/retry-after.ts";
export {
  checkSecret,
  isMalformedSecretError,
  MalformedSecretError,
  ownValue,
  readSecret,
  type SecretSpec,
} from "./util/secrets.ts";
export { plainTextBatch, quotedReplyId, reconcileEachUnit } from "./util/send-steps.ts";
export {
  constantTimeEqual,
  type Ed25519Check,
  ed25519PublicKey,
  type HmacSha256Check,
  hmacSha256Hex,
  type SignedData,
  type TimestampedHmacCheck,
  verifyEd25519,
  verifyHmacSha256,
  verifyTimestampedHmac,
} from "./util/verify.ts";
export {
  type AckResponseOptions,
  ackToResponse,
  refuseUnauthenticated,
} from "./util/webhook-response.ts";
export { type WebhookReceiverOptions, webhookReceiver } from "./webhook.ts";
