/**
 * Inbound files on Discord ([H23]; PLATFORMS.md §10): an attachment of an inbound message
 * carries Discord's CDN `url` (signed, fetched without the bot token), `filename`, `size` and
 * `content_type`. `receive.fetchAttachment` streams it chunk by chunk under the caller's cap
 * (`AttachmentTooLargeError`: before the download when the size is known, else when the stream
 * passes it); never buffered whole.
 *
 * Source: https://discord.com/developers/docs/resources/message#attachment-object
 *
 * @module
 */
import {
  AttachmentTooLargeError,
  type FetchAttachment,
  limitStream,
} from "@herald/plugin-sdk/channel-message";
import { DiscordRenderError } from "./errors.ts";

/** The adapter's `receive.fetchAttachment`. */
export function createFetchAttachment(channel: string): FetchAttachment {
  return async (ctx, attachment, options) => {
    const name = attachment.name ?? "attachment";
    if (!attachment.url || !/^https?:\/\//i.test(attachment.url)) {
      throw new DiscordRenderError(`attachment ${name} has no CDN url to fetch`);
    }
    if (attachment.sizeBytes !== undefined && attachment.sizeBytes > options.maxBytes) {
      throw new AttachmentTooLargeError({
        name,
        sizeBytes: attachment.sizeBytes,
        maxBytes: options.maxBytes,
        channel,
      });
    }
    const signal = options.signal ?? ctx.signal;
    const response = await fetch(attachment.url, signal ? { signal } : {});
    if (!response.ok || !response.body) {
      throw new DiscordRenderError(`attachment ${name}: the CDN answered ${response.status}`);
    }
    return limitStream(response.body, options.maxBytes, { name, channel });
  };
}
