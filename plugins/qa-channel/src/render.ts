/**
 * Rendering for the QA platform, which shows markdown source as plain text: the body is split
 * with the SDK's `chunkText` into units of at most `maxLength` UTF-16 units (never inside a
 * grapheme, fenced code re-opened in the next unit), attachments become text lines (the QA
 * platform has no uploads).
 *
 * @module
 */
import {
  type ChannelMessage,
  chunkText,
  type MessageRenderAdapter,
  type RenderedMessageUnit,
} from "@herald/plugin-sdk/channel-message";
import { QaRenderError } from "./errors.ts";

/** The payload of one QA unit: the text of one platform message. */
export type QaUnitPayload = { text: string };

function attachmentLine(a: NonNullable<ChannelMessage["attachments"]>[number]): string {
  const where = a.url ?? a.name ?? a.platformFileId ?? a.path ?? "";
  return `[${a.kind}${where ? `: ${where}` : ""}]${a.caption ? ` ${a.caption}` : ""}`;
}

/**
 * The render adapter. Attachments come first (one unit each, caption included, split when
 * long), then the body's chunks.
 *
 * @param maxLength - longest unit text, in UTF-16 units.
 * @throws QaRenderError when the message has neither text nor attachments.
 */
export function createRender(maxLength: number): MessageRenderAdapter {
  return {
    render(message, ctx) {
      const texts = [
        ...(message.attachments ?? []).flatMap((a) =>
          chunkText(attachmentLine(a), { maxLength, codeFences: false }).map((c) => c.text),
        ),
        ...chunkText(message.body?.markdown ?? message.body?.plain ?? "", { maxLength }).map(
          (c) => c.text,
        ),
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
