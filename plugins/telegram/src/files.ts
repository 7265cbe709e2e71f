/**
 * Inbound files on Telegram ([H23]; PLATFORMS.md §10): `receive.fetchAttachment` asks `getFile`
 * for the attachment's `platformFileId`, then streams `<apiRoot>/file/bot<token>/<file_path>`
 * — chunk by chunk, never buffered whole, erroring with `AttachmentTooLargeError` past the
 * caller's `maxBytes`. A file with a known size over `maxBytes`, or over the Bot API's 20 MB
 * download limit, is refused before any call.
 *
 * Source: https://core.telegram.org/bots/api#getfile
 *
 * @module
 */
import {
  AttachmentTooLargeError,
  type FetchAttachment,
  limitStream,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { grammySignal } from "./client.ts";
import { TelegramApiError, TelegramRenderError } from "./errors.ts";

/** The Bot API's largest download, bytes. */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

/** The adapter's `receive.fetchAttachment`. */
export function createFetchAttachment(
  channel: string,
  api: Api,
  fileUrl: (filePath: string) => string,
): FetchAttachment {
  return async (ctx, attachment, options) => {
    const name = attachment.name ?? attachment.platformFileId ?? "attachment";
    const fileId = attachment.platformFileId;
    if (!fileId) throw new TelegramRenderError(`attachment ${name} has no platformFileId`);
    const limit = Math.min(options.maxBytes, TELEGRAM_DOWNLOAD_LIMIT);
    if (attachment.sizeBytes !== undefined && attachment.sizeBytes > limit) {
      throw new AttachmentTooLargeError({
        name,
        sizeBytes: attachment.sizeBytes,
        maxBytes: limit,
        channel,
      });
    }
    const signal = options.signal ?? ctx.signal;
    const file = await api.getFile(fileId, grammySignal(signal));
    if (!file.file_path) {
      throw new TelegramApiError("getFile", {
        error_code: 400,
        description: "Bad Request: no file_path (file is too big)",
      });
    }
    const response = await fetch(fileUrl(file.file_path), { signal });
    if (!response.ok || !response.body) {
      throw new TelegramApiError("file download", {
        error_code: response.status,
        description: `HTTP ${response.status}`,
      });
    }
    return limitStream(response.body, limit, { name, channel });
  };
}
