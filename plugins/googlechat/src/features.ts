/**
 * Google Chat's [H23] features under app authentication (`chat.bot`, how herald authenticates):
 *
 * - **DMs**: `spaces.findDirectMessage` finds the DM between a user and the app. An app cannot
 *   create one (`spaces.setup` needs user authentication): with no DM yet,
 *   `DirectMessageUnavailableError` (reason `user_never_messaged_app`) — the user must add or
 *   message the app first.
 * - **Ephemeral**: `spaces.messages.create` with `privateMessageViewer` (only that user sees it;
 *   app authentication only), deduplicated by `requestId` like every send.
 * - **Files in**: a user's uploaded attachment carries `attachmentDataRef.resourceName`;
 *   `media.download` (app authentication allowed) streams it, capped at `maxBytes`. Drive files
 *   (`driveDataRef`) are not downloaded (they need the Drive API and user authentication).
 *
 * Not available to apps (their methods list no `chat.bot` scope in the API's discovery
 * document): uploads (`media.upload`), reactions (`spaces.messages.reactions.*`), and
 * `spaces.setup`; history (`spaces.messages.list`) needs `chat.app.messages.readonly` with
 * administrator approval (as catch-up does) and is not offered here.
 *
 * Source: https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces/findDirectMessage,
 * https://developers.google.com/workspace/chat/create-messages#private,
 * https://developers.google.com/workspace/chat/api/reference/rest/v1/media/download
 *
 * @module
 */
import {
  AttachmentTooLargeError,
  DirectMessageUnavailableError,
  type EphemeralRequest,
  type FetchAttachment,
  limitStream,
  type MessageDirectAdapter,
  type MessageReceiptPart,
  type MessageSendContext,
} from "@herald/plugin-sdk/channel-message";
import type { ChatApi } from "./client.ts";
import { GoogleChatApiError } from "./errors.ts";
import { spaceNameOf } from "./names.ts";
import type { GoogleChatUnitPayload } from "./render.ts";
import { clientMessageId, requestIdOf } from "./send.ts";

const USER_NAME = /^users\/[^/]+$/;

/** The DM adapter: `spaces.findDirectMessage`, never a new space. */
export function createDirect(api: ChatApi): MessageDirectAdapter {
  return {
    /**
     * @throws DirectMessageUnavailableError when `userId` is not `users/…`, or the user has no DM
     *   with the app yet (`user_never_messaged_app`).
     */
    async open(ctx, { userId }) {
      if (!USER_NAME.test(userId)) {
        throw new DirectMessageUnavailableError(
          "googlechat",
          userId,
          "invalid_user_name (not users/…)",
        );
      }
      try {
        const space = await api.findDirectMessage(userId, ctx.signal);
        if (!space.name)
          throw new DirectMessageUnavailableError(
            "googlechat",
            userId,
            "findDirectMessage answered without a space name",
          );
        return { kind: "direct", id: space.name };
      } catch (error) {
        if (error instanceof GoogleChatApiError && error.status === 404) {
          throw new DirectMessageUnavailableError(
            "googlechat",
            userId,
            "user_never_messaged_app (an app cannot create a DM: spaces.setup needs user authentication)",
            { cause: error },
          );
        }
        throw error;
      }
    },
  };
}

/** `send.sendEphemeral`: the unit as a private message only `userId` sees. */
export function createSendEphemeral(
  api: ChatApi,
): (ctx: MessageSendContext, request: EphemeralRequest) => Promise<MessageReceiptPart> {
  return async (ctx, request) => {
    if (!USER_NAME.test(request.userId)) {
      throw new TypeError(
        `googlechat: privateMessageViewer must be users/…, got ${JSON.stringify(request.userId)}`,
      );
    }
    const payload = request.unit.payload as GoogleChatUnitPayload;
    const space = spaceNameOf(request.target.nativeChannelId ?? request.target.id);
    const created = await api.create(
      {
        parent: space,
        requestId: requestIdOf(`ephemeral:${ctx.unitIdempotencyKey}`),
        messageId: clientMessageId(`ephemeral:${ctx.unitIdempotencyKey}`),
        requestBody: { ...payload, privateMessageViewer: { name: request.userId } },
      },
      ctx.signal,
    );
    return {
      platformMessageId: created.name ?? "",
      kind: request.unit.kind,
      index: request.unit.index,
    };
  };
}

/**
 * `receive.fetchAttachment`: `media.download` of the attachment's `platformFileId` (its
 * `attachmentDataRef.resourceName`), streamed and capped.
 * @throws AttachmentTooLargeError past `maxBytes`.
 */
export function createFetchAttachment(api: ChatApi): FetchAttachment {
  return async (ctx, attachment, options) => {
    const resource = attachment.platformFileId;
    if (!resource) {
      throw new TypeError(
        "googlechat: only uploaded attachments (attachmentDataRef) can be fetched",
      );
    }
    const name = attachment.name ?? resource;
    if (attachment.sizeBytes !== undefined && attachment.sizeBytes > options.maxBytes) {
      throw new AttachmentTooLargeError({
        name,
        sizeBytes: attachment.sizeBytes,
        maxBytes: options.maxBytes,
        channel: ctx.channel,
      });
    }
    const { body } = await api.download(resource, options.signal ?? ctx.signal);
    return limitStream(body, options.maxBytes, { name, channel: ctx.channel });
  };
}
