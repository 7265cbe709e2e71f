/**
 * The adapter surface of the features beyond text ([H23]; PLATFORMS.md §10): reactions,
 * direct messages, ephemeral replies, history, inbound files. Every method is optional: a
 * channel without one declares the capability absent and core throws `NotSupportedError`.
 *
 * @module
 */
import type { RenderedMessageUnit } from "../message/batch.ts";
import type { ChannelMessage, MessageAttachment, MessageTarget } from "../message/message.ts";
import type { MessageSendContext } from "./context.ts";

/** What `send.react` is asked to do: one reaction on one message. */
export type ReactRequest = {
  /** The conversation of the reacted-to message. */
  target: MessageTarget;
  /** Platform id of the reacted-to message. */
  messageId: string;
  /** Unicode emoji, or the platform's name for it (Slack `eyes`). */
  emoji: string;
  /** Remove instead of add. @defaultValue false */
  remove?: boolean;
};

/** What `send.sendEphemeral` is asked to deliver: one unit only `userId` sees. */
export type EphemeralRequest = {
  target: MessageTarget;
  /** Platform id of the only user who sees it. */
  userId: string;
  /** The rendered unit (from the adapter's own `render`). */
  unit: RenderedMessageUnit;
};

/** Opening (or finding) the direct chat with a user. */
export type MessageDirectAdapter = {
  /**
   * Returns the DM conversation with `userId` (`kind: "direct"`), opening it when none exists.
   * Idempotent: the same user gets the same conversation (Slack `conversations.open`, Discord
   * create-DM, Matrix `m.direct` reuse).
   * @throws DirectMessageUnavailableError when the platform will not (Telegram: the user never
   * started the bot).
   */
  open(ctx: FeatureContext, request: { userId: string }): Promise<MessageTarget>;
};

/** One history query. */
export type HistoryQuery = {
  target: MessageTarget;
  /** Read this thread only. */
  threadId?: string;
  /** Most messages returned (at most `capabilities.history.maxLimit`). */
  limit: number;
  /** Only messages older than this platform message id (paging backwards). */
  before?: string;
};

/** Reading recent messages of a conversation or thread. */
export type MessageHistoryAdapter = {
  /**
   * Recent messages, normalized like inbound ones (`direction` is `outbound` for the bot's
   * own), oldest first (newest last).
   */
  list(ctx: FeatureContext, query: HistoryQuery): Promise<ChannelMessage[]>;
};

/** Fetching an inbound attachment's bytes. */
export type FetchAttachmentOptions = {
  /** Stop with `AttachmentTooLargeError` past this many bytes. */
  maxBytes: number;
  signal?: AbortSignal;
};

/**
 * Streams one inbound attachment with the platform's auth. Never buffers the whole file: the
 * stream errors with `AttachmentTooLargeError` once `maxBytes` is passed.
 */
export type FetchAttachment = (
  ctx: FeatureContext,
  attachment: MessageAttachment,
  options: FetchAttachmentOptions,
) => Promise<ReadableStream<Uint8Array>>;

/**
 * What a feature call (DM open, history, attachment fetch) gets: the channel, account, a
 * logger and an abort signal. Durable operations (reactions, ephemeral sends) get the full
 * {@link MessageSendContext} instead.
 */
export type FeatureContext = Pick<MessageSendContext, "channel" | "log" | "signal"> & {
  accountId?: string;
};
