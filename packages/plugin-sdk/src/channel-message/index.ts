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
  MessageRelation,
  MessageRenderAdapter,
  MessageSendAdapter,
  MessageSendContext,
  MessageTarget,
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
  WatermarkId,
  WatermarkTracker,
} from "@herald/core";
export {
  gatewayFailureOrigin,
  HeraldError,
  ignore,
  joinIssuePath,
  mergeReceipts,
  NotImplementedError,
  parseInbound,
  ReceiveValidationError,
  receiptFromParts,
  shouldDropHeraldEcho,
} from "@herald/core";

// zod, for `configSchema` and payload validation (plugins do not depend on zod directly).
export { z } from "zod";

// The plugin shape.
export {
  type ChannelPlugin,
  type ChannelPluginDeps,
  type ChannelReceiver,
  type ChannelReceiverSink,
  defineChannelMessageAdapter,
  defineChannelPlugin,
} from "./plugin.ts";

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
