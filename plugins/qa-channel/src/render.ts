/**
 * Rendering for the QA platform, which shows markdown source as plain text: the body is split
 * into text units of at most `maxLength` UTF-16 units, attachments become text lines (the QA
 * platform has no uploads).
 *
 * @module
 */
import type {
  ChannelMessage,
  MessageRenderAdapter,
  RenderedMessageUnit,
} from "@herald/plugin-sdk/channel-message";
import { QaRenderError } from "./errors.ts";

/** The payload of one QA unit: the text of one platform message. */
export type QaUnitPayload = { text: string };

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Splits text into chunks of at most `maxLength` UTF-16 units, at the last line break or space
 * that fits (in the second half of the chunk), else at a grapheme boundary — never inside a
 * grapheme cluster, so never inside a surrogate pair (C16). The chunks concatenate to the input.
 */
export function chunkPlainText(text: string, maxLength: number): string[] {
  const chunks: string[] = [];
  let current = "";
  let breakAt = -1; // index in `current` just after the last whitespace
  for (const { segment } of segmenter.segment(text)) {
    if (current.length + segment.length > maxLength && current.length > 0) {
      const cut = breakAt > maxLength / 2 ? breakAt : current.length;
      chunks.push(current.slice(0, cut));
      current = current.slice(cut);
      breakAt = -1;
    }
    if (segment.length > maxLength) {
      // One cluster longer than the limit: split it at code points (never a surrogate pair).
      for (const point of segment) {
        if (current.length + point.length > maxLength) {
          chunks.push(current);
          current = "";
        }
        current += point;
      }
      continue;
    }
    current += segment;
    if (/\s/.test(segment)) breakAt = current.length;
  }
  if (current) chunks.push(current);
  return chunks;
}

function attachmentLine(a: NonNullable<ChannelMessage["attachments"]>[number]): string {
  const where = a.url ?? a.name ?? a.platformFileId ?? a.path ?? "";
  return `[${a.kind}${where ? `: ${where}` : ""}]${a.caption ? ` ${a.caption}` : ""}`;
}

/**
 * The render adapter. Attachments come first (one unit each, caption included, split like text
 * when long), then the body's chunks.
 *
 * @throws QaRenderError when the message has neither text nor attachments.
 */
export function createRender(maxLength: number): MessageRenderAdapter {
  return {
    render(message, ctx) {
      const texts = [
        ...(message.attachments ?? []).flatMap((a) => chunkPlainText(attachmentLine(a), maxLength)),
        ...chunkPlainText(message.body?.markdown ?? message.body?.plain ?? "", maxLength),
      ].filter((t) => t.trim() !== "");
      if (texts.length === 0) throw new QaRenderError(`message ${message.id} has no text to send`);
      const units: RenderedMessageUnit[] = texts.map((text, index) => ({
        index,
        kind: "text",
        payload: { text } satisfies QaUnitPayload,
        required: true,
      }));
      return { idempotencyKey: ctx.idempotencyKey, atomicity: "all_or_retry_remaining", units };
    },
  };
}
