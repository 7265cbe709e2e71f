/**
 * Rendering for the QA platform, which shows markdown source as plain text: a long body is split
 * with the SDK's inline-aware `chunkMarkdown` into units of at most `maxLength` UTF-16 units
 * (never inside a grapheme, a mark, a link or a fence; marks and fences re-opened in the next
 * unit), a literal body with `chunkText`; attachments become text lines (the QA platform has no
 * uploads).
 *
 * @module
 */
import {
  bodyTree,
  type ChannelMessage,
  chunkMarkdown,
  chunkText,
  type MessageBody,
  type MessageRenderAdapter,
  type RenderedMessageUnit,
  renderCommonMark,
} from "@herald/plugin-sdk/channel-message";
import { QaRenderError } from "./errors.ts";

/** The payload of one QA unit: the text of one platform message. */
export type QaUnitPayload = { text: string };

function attachmentLine(a: NonNullable<ChannelMessage["attachments"]>[number]): string {
  const where = a.url ?? a.name ?? a.platformFileId ?? a.path ?? "";
  return `[${a.kind}${where ? `: ${where}` : ""}]${a.caption ? ` ${a.caption}` : ""}`;
}

/**
 * The body's unit texts. The QA platform shows markdown source: a body that fits is sent as
 * written; a longer markdown body is cut by the SDK's inline-aware `chunkMarkdown` and each
 * chunk written back as CommonMark, so no chunk holds half a `**mark**`, a cut link or an
 * unbalanced fence. A literal body (the activity log) is shown as typed, split only at text
 * boundaries.
 */
function bodyTexts(body: MessageBody | undefined, maxLength: number): string[] {
  const source = body?.markdown || body?.plain || "";
  if (body?.literal || !body?.markdown) {
    return chunkText(source, { maxLength, codeFences: false }).map((c) => c.text);
  }
  if (source.length <= maxLength) return [source];
  return chunkMarkdown(bodyTree(body), { maxLength, serialize: (t) => renderCommonMark(t) }).map(
    (c) => c.text,
  );
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
        ...bodyTexts(message.body, maxLength),
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
