/**
 * Rendering for Matrix: markdown → `m.room.message` content with a plain `body` and a sanitized
 * HTML `formatted_body` (`org.matrix.custom.html`), both from the SDK's Matrix dialect
 * (`renderMatrix`: raw HTML is text, `javascript:` links lose their href; CASES C32). Matrix user
 * ids written in the text (`@alice:example.org`) become `matrix.to` pills and are listed in
 * `m.mentions` — nobody else is pinged (no legacy body-keyword mentions).
 *
 * Chunking: Matrix has no text limit, only the event size (65,536 bytes, `M_TOO_LARGE`). Each
 * unit's plain body stays within `maxTextLength` UTF-16 units **and** its whole serialized
 * content within `maxContentBytes` minus room for relations and the origin key; the SDK's
 * inline-aware chunker measures both on the serialized output, so a mark or fence cut by a
 * boundary is closed and re-opened.
 *
 * Attachments: a remote-URL attachment is sent as a link line; a local file (`path`) or an
 * `mxc://` `platformFileId` is its own file unit before the text (`media.ts`); captions join the
 * text. Anything else throws `NotImplementedError` (docs/channels/matrix.md).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#mroommessage-msgtypes,
 * https://spec.matrix.org/latest/client-server-api/#user-and-room-mentions
 *
 * @module
 */
import {
  bodyTree,
  type ChannelMessage,
  chunkMarkdown,
  extractMentions,
  type MatrixTextContent,
  type MdastRoot,
  type Mention,
  type MentionSyntax,
  type MessageRenderAdapter,
  NotImplementedError,
  parseMarkdown,
  type RenderedMessageUnit,
  renderMatrix,
  utf8ByteLength,
  utf16Length,
} from "@herald/plugin-sdk/channel-message";
import type { MatrixConfig } from "./config.ts";
import { MatrixRenderError } from "./errors.ts";
import { isFileAttachment, type MatrixMediaPayload, mediaPayloadOf } from "./media.ts";

/**
 * Bytes kept free in every unit's budget for what send adds to the content: reply or thread
 * relation (`m.relates_to`, two event ids ≤ 255 bytes each), `m.mentions`, the origin key.
 */
export const CONTENT_OVERHEAD_BYTES = 2_000;

/** The payload of one Matrix unit (one event). Plain JSON: it is stored on the intent. */
export type MatrixUnitPayload = {
  type: "text";
  /** The message content without relations, mentions or origin (send adds those). */
  content: MatrixTextContent;
  /** Matrix user ids this part mentions (its `m.mentions.user_ids`). */
  mentions: string[];
};

/** A chunk as the chunker measures it: its content and the users it mentions. */
type Serialized = { content: MatrixTextContent; mentions: string[] };

/** Matrix user ids in text: `@localpart:server[:port]` (spec "User Identifiers"). */
export const matrixUserMentions: MentionSyntax = {
  pattern: /(?<![\w@/.])@[A-Za-z0-9._=+/-]+:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d{1,5})?/g,
  parse(match): Mention {
    const id = match[0];
    return { type: "mention", kind: "user", id, label: id.slice(1) };
  },
};

/** Every user id a tree mentions, in first-mention order. */
export function mentionedUsers(tree: MdastRoot): string[] {
  const out: string[] = [];
  const walk = (node: { type: string; children?: unknown[] } & Partial<Mention>) => {
    if (node.type === "mention" && node.kind === "user" && node.id && !out.includes(node.id)) {
      out.push(node.id);
    }
    for (const child of node.children ?? []) walk(child as typeof node);
  };
  walk(tree as never);
  return out;
}

/** Limits the renderer works to. */
export type RenderLimits = Pick<MatrixConfig, "maxTextLength" | "maxContentBytes" | "msgtype">;

/** The tree of a message: its body plus attachment links, with Matrix user ids as mentions. */
function treeOf(message: ChannelMessage): MdastRoot {
  const links: string[] = [];
  for (const a of message.attachments ?? []) {
    if (isFileAttachment(a)) {
      if (a.caption?.trim()) links.push(a.caption);
    } else if (a.url && (a.kind === "link" || /^https?:/i.test(a.url))) links.push(`<${a.url}>`);
    else
      throw new NotImplementedError(
        "Matrix media upload",
        "an attachment needs a path (uploaded), an mxc:// platformFileId or an http(s) url (sent as a link)",
      );
  }
  const tree = bodyTree(message.body);
  if (links.length > 0) {
    tree.children.push(...parseMarkdown(links.join("\n\n")).children);
  }
  return extractMentions(tree, matrixUserMentions);
}

/**
 * Renders a message into Matrix contents, in order. Each part's body is at most
 * `maxTextLength` UTF-16 units and its content at most `maxContentBytes −`
 * {@link CONTENT_OVERHEAD_BYTES} UTF-8 bytes of JSON.
 *
 * @throws MatrixRenderError when there is nothing to send.
 * @throws NotImplementedError for an attachment that would need an upload.
 */
export function renderPayloads(message: ChannelMessage, limits: RenderLimits): MatrixUnitPayload[] {
  const tree = treeOf(message);
  const msgtype = limits.msgtype;
  const budgetBytes = limits.maxContentBytes - CONTENT_OVERHEAD_BYTES;
  const max = limits.maxTextLength;
  // One measure for both limits: the larger share of either budget, scaled to maxTextLength.
  // A chunk is measured with what send adds for its mentions: `m.mentions.user_ids` once on a
  // send, twice on an edit (the full set in `m.new_content`, the new ones at the top level).
  const measure = (serialized: string) => {
    const { content, mentions } = JSON.parse(serialized) as Serialized;
    const eventBytes =
      utf8ByteLength(JSON.stringify(content)) + 2 * utf8ByteLength(JSON.stringify(mentions));
    const byBytes = Math.ceil((eventBytes * max) / budgetBytes);
    return Math.max(utf16Length(content.body), byBytes);
  };
  const chunks = chunkMarkdown(tree, {
    maxLength: max,
    measure,
    serialize: (t) =>
      JSON.stringify({
        content: renderMatrix(t, { msgtype }),
        mentions: mentionedUsers(t),
      } satisfies Serialized),
  });
  const out = chunks
    .map((c) => {
      const { content, mentions } = JSON.parse(c.text) as Serialized;
      return { type: "text" as const, content, mentions };
    })
    .filter((p) => p.content.body.trim() !== "");
  if (out.length === 0) {
    throw new MatrixRenderError(`message ${message.id} has no text to send`);
  }
  return out;
}

/**
 * The render adapter: one unit per part, every unit required, a failed batch retries only the
 * missing parts (`all_or_retry_remaining`).
 */
export function createRender(limits: RenderLimits): MessageRenderAdapter {
  return {
    render(message, ctx) {
      const files = (message.attachments ?? []).flatMap((a, i) =>
        isFileAttachment(a) ? [mediaPayloadOf(a, `attachments[${i}]`)] : [],
      );
      let texts: MatrixUnitPayload[] = [];
      try {
        texts = renderPayloads(message, limits);
      } catch (error) {
        // A message of files only has no text unit.
        if (!(error instanceof MatrixRenderError && files.length > 0)) throw error;
      }
      // Files first, then the text (the caption), as on every channel ([H23]).
      const payloads: Array<MatrixUnitPayload | MatrixMediaPayload> = [...files, ...texts];
      const units: RenderedMessageUnit[] = payloads.map((payload, index) => ({
        index,
        kind: payload.type === "media" ? "media" : "text",
        payload,
        required: true,
      }));
      return { idempotencyKey: ctx.idempotencyKey, atomicity: "all_or_retry_remaining", units };
    },
  };
}
