/**
 * Rendering for Slack: markdown → mrkdwn through the SDK's Slack dialect (`renderSlack`:
 * `& < >` escaped exactly once, the links and mentions the renderer makes kept intact, a user's
 * literal `<@U123>` text escaped so it never becomes a mention), chunked by the SDK's
 * inline-aware `chunkMarkdown` to `maxTextLength` measured on the serialized mrkdwn (marks and
 * fences closed and re-opened; never a split surrogate pair or grapheme). A literal body (the
 * activity log) is escaped, never parsed. Attachments become their own units before the text: an
 * image with a public URL is an image block (Slack fetches it); any other file is uploaded
 * (`files.getUploadURLExternal` + `completeUploadExternal`, `upload.ts`).
 *
 * Source: https://api.slack.com/reference/surfaces/formatting
 *
 * @module
 */
import {
  bodyTree,
  type ChannelMessage,
  chunkMarkdown,
  type MessageRenderAdapter,
  type RenderedMessageUnit,
  renderSlack,
} from "@herald/plugin-sdk/channel-message";
import { actionBlocks } from "./actions.ts";
import type { SlackConfig } from "./config.ts";
import { SlackRenderError } from "./errors.ts";

/** One text unit: the mrkdwn `text` of one `chat.postMessage`. */
export type SlackTextPayload = {
  type: "text";
  text: string;
  /** Block Kit blocks: the text and the message's buttons ([H23], `actions.ts`). */
  blocks?: unknown[];
};
/** One file unit: a file uploaded into the conversation, with an optional mrkdwn comment. */
export type SlackFilePayload = {
  type: "file";
  /** Where the bytes come from: a remote URL (fetched through the guarded fetch) or a local path. */
  source: { url: string } | { path: string };
  filename: string;
  /** The file's title and the message's comment (mrkdwn). */
  title?: string;
  comment?: string;
  mimeType?: string;
};
/** An image Slack fetches itself from a public URL: a message with an image block. */
export type SlackImagePayload = {
  type: "image";
  url: string;
  altText: string;
  /** mrkdwn shown with it (the caption). */
  comment?: string;
};
/** What one Slack unit carries (`RenderedMessageUnit.payload`). */
export type SlackUnitPayload = SlackTextPayload | SlackFilePayload | SlackImagePayload;

/** The mrkdwn chunks of a message body. */
export function bodyChunks(message: Pick<ChannelMessage, "body">, maxLength: number): string[] {
  const tree = bodyTree(message.body);
  if (tree.children.length === 0) return [];
  return chunkMarkdown(tree, { maxLength, serialize: (t) => renderSlack(t) })
    .map((c) => c.text)
    .filter((t) => t.trim() !== "");
}

/** Slack's longest image block `alt_text`, in characters. */
const ALT_TEXT_LIMIT = 2_000;

/** `text` cut to `limit` UTF-16 units (an ellipsis at the cut), never inside a surrogate pair. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/**
 * An attachment's units: the file or image (its caption's first chunk as the comment), then the
 * rest of a caption longer than one message as text units — never dropped.
 */
function attachmentPayloads(
  a: NonNullable<ChannelMessage["attachments"]>[number],
  maxLength: number,
): SlackUnitPayload[] {
  const [first, ...rest] = a.caption
    ? bodyChunks({ body: { markdown: a.caption } }, maxLength)
    : [];
  return [fileUnitOf(a, first), ...rest.map((text) => ({ type: "text" as const, text }))];
}

function fileUnitOf(
  a: NonNullable<ChannelMessage["attachments"]>[number],
  caption: string | undefined,
): SlackFilePayload | SlackImagePayload {
  if (a.kind === "image" && a.url && /^https?:/i.test(a.url)) {
    return {
      type: "image",
      url: a.url,
      altText: cut(a.caption ?? a.name ?? "image", ALT_TEXT_LIMIT),
      ...(caption ? { comment: caption } : {}),
    };
  }
  const source = a.url ? { url: a.url } : a.path ? { path: a.path } : undefined;
  if (!source) {
    throw new SlackRenderError(
      `attachment ${a.name ?? a.kind} has neither url nor path (Slack file ids cannot be re-posted)`,
    );
  }
  const fromUrl = a.url ? decodeURIComponent(new URL(a.url).pathname.split("/").pop() ?? "") : "";
  const filename = a.name ?? (fromUrl || a.path?.split("/").pop() || `${a.kind}`);
  const comment = caption;
  return {
    type: "file",
    source,
    filename,
    ...(a.name ? { title: a.name } : {}),
    ...(comment ? { comment } : {}),
    ...(a.mimeType ? { mimeType: a.mimeType } : {}),
  };
}

/**
 * The render adapter: attachments first (one file unit each), then the body's mrkdwn chunks.
 *
 * @throws SlackRenderError when the message has neither text nor attachments, or an attachment
 *   has no source Slack can upload.
 */
export function createRender(config: Pick<SlackConfig, "maxTextLength">): MessageRenderAdapter {
  const maxLength = config.maxTextLength;
  return {
    render(message, ctx) {
      const payloads: SlackUnitPayload[] = [
        ...(message.attachments ?? []).flatMap((a) => attachmentPayloads(a, maxLength)),
        ...bodyChunks(message, maxLength).map((text) => ({ type: "text" as const, text })),
      ];
      if (message.actions?.length) {
        // The buttons go under the last text (a text of their labels when there is none).
        let last = payloads.findLastIndex((p) => p.type === "text");
        if (last < 0) {
          payloads.push({ type: "text", text: message.actions.map((a) => a.label).join(" / ") });
          last = payloads.length - 1;
        }
        const unit = payloads[last] as SlackTextPayload;
        payloads[last] = { ...unit, blocks: actionBlocks(unit.text, message.actions) };
      }
      if (payloads.length === 0) {
        throw new SlackRenderError(`message ${message.id} has no text or attachment to send`);
      }
      const units: RenderedMessageUnit[] = payloads.map((payload, index) => ({
        index,
        kind: payload.type === "text" ? "text" : "media",
        payload,
        required: true,
      }));
      return { idempotencyKey: ctx.idempotencyKey, atomicity: "all_or_retry_remaining", units };
    },
  };
}
