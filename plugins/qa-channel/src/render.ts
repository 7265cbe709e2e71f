/**
 * Rendering for the QA platform, which shows markdown source as plain text: a long body is split
 * with the SDK's inline-aware `chunkMarkdown` into units of at most `maxLength` UTF-16 units
 * (never inside a grapheme, a mark, a link or a fence; marks and fences re-opened in the next
 * unit), a literal body with `chunkText`. Each file (a local `path` or a `platformFileId`)
 * is its own `media` unit carrying its caption ([H23]); a URL-only attachment becomes a text
 * line (the QA platform does not fetch URLs). Buttons ride on the last unit.
 *
 * @module
 */
import {
  bodyTree,
  type ChannelMessage,
  chunkMarkdown,
  chunkText,
  type MessageAttachment,
  type MessageBody,
  type MessageRenderAdapter,
  type RenderedMessageUnit,
  renderCommonMark,
} from "@herald/plugin-sdk/channel-message";
import { QaRenderError } from "./errors.ts";
import type { QaWireButton } from "./wire.ts";

/** A file a `media` unit uploads (or re-sends by its platform id). */
export type QaUnitFile = {
  path?: string;
  platformFileId?: string;
  name: string;
  mimeType: string;
};

/**
 * The payload of one QA unit: the text of one platform message, and for a `media` unit its
 * file (text = caption, may be empty); `buttons` on the last unit.
 */
export type QaUnitPayload = { text: string; file?: QaUnitFile; buttons?: QaWireButton[] };

function isUpload(a: MessageAttachment): boolean {
  return a.path !== undefined || a.platformFileId !== undefined;
}

function buttonsOf(message: ChannelMessage): QaWireButton[] | undefined {
  const actions = message.actions ?? [];
  if (actions.length === 0) return undefined;
  return actions.map((a) =>
    a.kind === "link"
      ? { label: a.label, url: a.url }
      : {
          id: a.id,
          label: a.label,
          ...(a.value !== undefined ? { value: a.value } : {}),
          ...(a.style !== undefined ? { style: a.style } : {}),
        },
  );
}

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
      const payloads: Array<{ kind: "text" | "media"; payload: QaUnitPayload }> = [];
      for (const [i, a] of (message.attachments ?? []).entries()) {
        if (!isUpload(a)) {
          for (const c of chunkText(attachmentLine(a), { maxLength, codeFences: false }))
            payloads.push({ kind: "text", payload: { text: c.text } });
          continue;
        }
        const caption = chunkText(a.caption ?? "", { maxLength, codeFences: false }).map(
          (c) => c.text,
        );
        const file: QaUnitFile = {
          name: a.name ?? a.path?.split("/").pop() ?? `file-${i + 1}`,
          mimeType: a.mimeType ?? "application/octet-stream",
          ...(a.path !== undefined ? { path: a.path } : {}),
          ...(a.platformFileId !== undefined ? { platformFileId: a.platformFileId } : {}),
        };
        payloads.push({ kind: "media", payload: { text: caption[0] ?? "", file } });
        for (const rest of caption.slice(1))
          payloads.push({ kind: "text", payload: { text: rest } });
      }
      for (const text of bodyTexts(message.body, maxLength))
        payloads.push({ kind: "text", payload: { text } });
      const kept = payloads.filter((p) => p.kind === "media" || p.payload.text.trim() !== "");
      const buttons = buttonsOf(message);
      if (buttons && kept.length === 0) kept.push({ kind: "text", payload: { text: "Choose:" } });
      if (kept.length === 0) throw new QaRenderError(`message ${message.id} has no text to send`);
      const last = kept[kept.length - 1];
      if (buttons && last) last.payload = { ...last.payload, buttons };
      const units: RenderedMessageUnit[] = kept.map((p, index) => ({
        index,
        kind: p.kind,
        payload: p.payload,
        required: true,
      }));
      return { idempotencyKey: ctx.idempotencyKey, atomicity: "all_or_retry_remaining", units };
    },
  };
}
