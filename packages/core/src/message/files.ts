/**
 * Files both ways ([H23]): the size check before any upload, and a byte cap on inbound
 * streams (never buffering a whole file).
 *
 * @module
 */
import type { MessageCapabilities } from "./capabilities.ts";
import { AttachmentTooLargeError } from "./featureErrors.ts";
import type { ChannelMessage } from "./message.ts";

/**
 * Throws when an outbound attachment with a known size is over the channel's
 * `attachments.maxUploadBytes` (nothing is uploaded). Attachments without `sizeBytes` (a remote
 * URL) are left to the platform.
 *
 * @throws AttachmentTooLargeError naming the file, its size, the limit and the channel.
 */
export function assertAttachmentSizes(
  message: Pick<ChannelMessage, "attachments" | "channel">,
  capabilities: MessageCapabilities,
): void {
  const max = capabilities.attachments?.maxUploadBytes;
  if (max === undefined) return;
  for (const [i, a] of (message.attachments ?? []).entries()) {
    if (a.sizeBytes !== undefined && a.sizeBytes > max) {
      throw new AttachmentTooLargeError({
        name: a.name ?? a.path ?? `attachments[${i}]`,
        sizeBytes: a.sizeBytes,
        maxBytes: max,
        channel: message.channel,
      });
    }
  }
}

/**
 * Passes `source` through, erroring with {@link AttachmentTooLargeError} (and cancelling the
 * source) once more than `maxBytes` bytes went by. Streams chunk by chunk; nothing is buffered.
 */
export function limitStream(
  source: ReadableStream<Uint8Array>,
  maxBytes: number,
  file: { name: string; channel: string },
): ReadableStream<Uint8Array> {
  let seen = 0;
  return source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) {
          controller.error(
            new AttachmentTooLargeError({
              name: file.name,
              sizeBytes: seen,
              maxBytes,
              channel: file.channel,
            }),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * The buttons as text, for channels without buttons: `Reply with: Approve / Reject`, links as
 * markdown links. Empty when there are none.
 */
export function actionsFallbackMarkdown(actions: ChannelMessage["actions"]): string {
  const list = actions ?? [];
  const buttons = list.filter((a) => a.kind === "button").map((a) => a.label);
  const links = list.flatMap((a) => (a.kind === "link" ? [`[${a.label}](${a.url})`] : []));
  const lines: string[] = [];
  if (buttons.length) lines.push(`Reply with: ${buttons.join(" / ")}`);
  if (links.length) lines.push(links.join(" · "));
  return lines.join("\n");
}

/**
 * The message as a channel without buttons receives it: the actions' text fallback appended
 * to the body (after a blank line) and `actions` removed. Unchanged when it has no actions.
 */
export function withActionsFallback<T extends Pick<ChannelMessage, "body" | "actions">>(
  message: T,
): T {
  const { actions, ...rest } = message;
  if (!actions?.length) return message;
  const fallback = actionsFallbackMarkdown(actions);
  const markdown = [message.body?.markdown, fallback].filter((p) => p?.trim()).join("\n\n");
  return { ...rest, body: { markdown } } as T;
}
