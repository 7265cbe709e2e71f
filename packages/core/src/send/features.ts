/**
 * `runtime.openDirect` / `sendEphemeral` / `history` / `fetchAttachment` ([H23]): the calls of
 * the features beyond text that are not durable intents (reactions are: `runtime.react`, in
 * `SendRuntime.ts`). Each checks the channel's capability first and throws `NotSupportedError`
 * when the channel cannot.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { DeliveryDeps } from "../delivery/deps.ts";
import { NotSupportedError } from "../message/featureErrors.ts";
import { limitStream } from "../message/files.ts";
import type { ChannelMessage, MessageAttachment, MessageTarget } from "../message/message.ts";
import type { MessageReceipt } from "../message/receipt.ts";
import { receiptFromParts } from "../message/receipt.ts";

/** Which channel account a feature call goes through. */
export type ChannelAddress = {
  /** Channel id, e.g. `"slack"`. */
  channel: string;
  /** Account (bot) id, when the channel has several. */
  accountId?: string;
};

/** `runtime.react`: one durable reaction operation. */
export type ReactionRequest = ChannelAddress & {
  /** The conversation of the reacted-to message. */
  target: MessageTarget;
  /** Platform id of the reacted-to message. */
  messageId: string;
  /** Unicode emoji, or the platform's name for it. */
  emoji: string;
  /** Remove the reaction instead of adding it. @defaultValue false */
  remove?: boolean;
  /**
   * Names this operation (required: an add, a remove and a second add of one emoji are three
   * operations with three keys). The bot API derives it from the turn.
   */
  idempotencyKey: string;
  /** How long to wait for the platform, ms. @defaultValue 30_000 */
  waitMs?: number;
};

/** `runtime.sendEphemeral`: a message only one user sees. */
export type EphemeralSendRequest = ChannelAddress & {
  /** The conversation it is shown in. */
  target: MessageTarget;
  /** Platform id of the only user who sees it. */
  userId: string;
  /** The message (its `body`, `actions`…); `channel`, `target` are taken from the request. */
  message: Omit<ChannelMessage, "channel" | "target" | "direction">;
};

/** `runtime.history`: recent messages of a conversation or thread. */
export type HistoryRequest = ChannelAddress & {
  target: MessageTarget;
  threadId?: string;
  /** Most messages, 1..`capabilities.history.maxLimit`. */
  limit: number;
  /** Page backwards from this platform message id. */
  before?: string;
};

/** `runtime.fetchAttachment`: an inbound file's bytes, streamed. */
export type AttachmentFetchRequest = ChannelAddress & {
  attachment: MessageAttachment;
  /** Error with `AttachmentTooLargeError` past this many bytes. */
  maxBytes: number;
  signal?: AbortSignal;
};

/** The non-durable feature calls of the runtime. */
export type FeatureApi = {
  /**
   * Opens (or finds) the DM with `userId`; the same user gets the same conversation.
   * @throws NotSupportedError when the channel has no DM API.
   * @throws DirectMessageUnavailableError when the platform refuses (e.g. Telegram: the user
   * never started the bot).
   */
  openDirect(request: ChannelAddress & { userId: string }): Promise<MessageTarget>;
  /**
   * Sends a message only `userId` sees (not durable: the platform cannot look it up).
   * @throws NotSupportedError when the channel has no ephemeral messages.
   */
  sendEphemeral(request: EphemeralSendRequest): Promise<MessageReceipt>;
  /**
   * Recent messages, oldest first. @throws NotSupportedError when the channel has no history
   * API (Telegram), or `threadId` is set and it cannot read threads.
   */
  history(request: HistoryRequest): Promise<ChannelMessage[]>;
  /**
   * Streams an inbound attachment, capped at `maxBytes`.
   * @throws NotSupportedError when the channel cannot fetch files.
   */
  fetchAttachment(request: AttachmentFetchRequest): Promise<ReadableStream<Uint8Array>>;
};

/** Builds the feature calls over the runtime's adapters. */
export function createFeatureApi(deps: DeliveryDeps): FeatureApi {
  const adapterOf = (a: ChannelAddress): ChannelMessageAdapter =>
    deps.requireAdapter(a.channel, a.accountId);
  const ctxOf = (a: ChannelAddress, signal?: AbortSignal) => ({
    channel: a.channel,
    ...(a.accountId === undefined ? {} : { accountId: a.accountId }),
    log: deps.logger.child({ channel: a.channel }),
    signal: signal ?? new AbortController().signal,
  });
  return {
    async openDirect(request) {
      const adapter = adapterOf(request);
      if (!adapter.directMessages || adapter.capabilities.directMessages?.open !== true)
        throw new NotSupportedError("direct_messages", request.channel);
      return adapter.directMessages.open(ctxOf(request), { userId: request.userId });
    },
    async sendEphemeral(request) {
      const adapter = adapterOf(request);
      const sendEphemeral = adapter.send.sendEphemeral;
      if (!sendEphemeral || adapter.capabilities.ephemeral !== true)
        throw new NotSupportedError("ephemeral", request.channel);
      const message: ChannelMessage = {
        ...request.message,
        channel: request.channel,
        ...(request.accountId === undefined ? {} : { accountId: request.accountId }),
        direction: "outbound",
        target: request.target,
      };
      const idempotencyKey = `ephemeral:${request.channel}:${message.id}`;
      const batch = await adapter.render.render(message, {
        idempotencyKey,
        capabilities: adapter.capabilities,
      });
      const parts = [];
      for (const unit of batch.units) {
        const part = await sendEphemeral.call(
          adapter.send,
          {
            ...ctxOf(request),
            message,
            attempt: 1,
            idempotencyKey,
            unitIdempotencyKey: `${idempotencyKey}#${unit.index}`,
          },
          { target: request.target, userId: request.userId, unit },
        );
        parts.push({ ...part, index: unit.index });
      }
      return receiptFromParts(parts, { sentAt: deps.clock() });
    },
    async history(request) {
      const adapter = adapterOf(request);
      const caps = adapter.capabilities.history;
      if (!adapter.history || !caps?.conversation)
        throw new NotSupportedError("history", request.channel);
      if (request.threadId !== undefined && !caps.thread)
        throw new NotSupportedError("history.thread", request.channel);
      if (!Number.isInteger(request.limit) || request.limit < 1)
        throw new RangeError(`history: limit must be a positive integer, got ${request.limit}`);
      return adapter.history.list(ctxOf(request), {
        target: request.target,
        limit: Math.min(request.limit, caps.maxLimit),
        ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
        ...(request.before === undefined ? {} : { before: request.before }),
      });
    },
    async fetchAttachment(request) {
      const adapter = adapterOf(request);
      const fetch = adapter.receive?.fetchAttachment;
      if (!fetch) throw new NotSupportedError("attachments.receive", request.channel);
      const stream = await fetch(ctxOf(request, request.signal), request.attachment, {
        maxBytes: request.maxBytes,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      // Capped here too: an adapter that forgot its cap never hands more than `maxBytes` on.
      return limitStream(stream, request.maxBytes, {
        name: request.attachment.name ?? "attachment",
        channel: request.channel,
      });
    },
  };
}
