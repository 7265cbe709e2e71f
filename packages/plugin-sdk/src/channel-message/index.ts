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
  DispatchEvidence,
  InboundEvent,
  InboundEventType,
  InboundIgnore,
  LiveMessageState,
  LiveStreamFinal,
  MessageActor,
  MessageAttachment,
  MessageBody,
  MessageCapabilities,
  MessageEventClass,
  MessageLiveAdapter,
  MessageNormalizeContext,
  MessageOrigin,
  MessageOriginAdapter,
  MessageReceipt,
  MessageReceiptPart,
  MessageReceiveAdapter,
  MessageRecipient,
  MessageRelation,
  MessageRenderAdapter,
  MessageSendAdapter,
  MessageSendContext,
  MessageTarget,
  MessageThreadAnchor,
  NormalizeResult,
  RateLimitScope,
  ReceiveAckPolicy,
  ReceiveAckSignal,
  ReceiveOutcome,
  ReceiveSource,
  ReceiveTicket,
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
  SecretRedactor,
  secretForms,
  shouldDropHeraldEcho,
  sleep,
  unshownStreamText,
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

// Render helpers: markdown AST, UTF-16 lengths, chunkers, text + entities, captions.
export {
  type CaptionSplit,
  type ChunkEntitiesOptions,
  type ChunkTextOptions,
  chunkText,
  chunkTextWithEntities,
  codePointLength,
  type EntityChunk,
  EntityRangeError,
  type Grapheme,
  graphemeBoundaryAtOrBefore,
  graphemes,
  type LengthMeasure,
  type MdastContent,
  type MdastNode,
  type MdastPhrasingContent,
  type MdastRoot,
  measureLength,
  parseMarkdown,
  RenderLimitError,
  renderTextWithEntities,
  type SplitCaptionOptions,
  safeSlice,
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
export { type HostResolver, isPublicAddress } from "./util/address-guard.ts";
export {
  ChannelOptionsError,
  channelOptionsOf,
  withChannelOptions,
} from "./util/channel-options.ts";
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
  PLATFORM_KEY_ALPHABETS,
  type PlatformKeyOptions,
  platformKey,
} from "./util/platform-key.ts";
export { type RetryOptions, retry } from "./util/retry.ts";
export { formatRetryAfter, parseRetryAfter } from "./util/retry-after.ts";
export {
  constantTimeEqual,
  type Ed25519Check,
  ed25519PublicKey,
  type HmacSha256Check,
  hmacSha256Hex,
  type SignedData,
  verifyEd25519,
  verifyHmacSha256,
} from "./util/verify.ts";
export { type AckResponseOptions, ackToResponse } from "./util/webhook-response.ts";
