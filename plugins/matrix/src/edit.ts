/**
 * The content of `m.replace` edits (spec "Event replacements", PLATFORMS.md §8, C33): the
 * fallback, the complete `m.new_content`, the relation to the original, and `m.mentions` — the
 * full set inside `m.new_content`, only users no earlier version mentioned at the top level.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#event-replacements
 *
 * @module
 */
import { utf8ByteLength } from "@herald/plugin-sdk/channel-message";
import { SENT_CONTENT_KEY } from "./origin.ts";
import type { MatrixUnitPayload } from "./render.ts";

/**
 * The content of an `m.replace` edit (spec "Event replacements"): a fallback (`* ` + the new
 * body) for clients without edits, the complete new content in `m.new_content` (its
 * `m.mentions` the full set), the relation to the **original** event, and a top-level
 * `m.mentions` with only the users not mentioned by any earlier version. When the whole content
 * would exceed `maxBytes`, the fallback is shortened (never `m.new_content`).
 */
export function editContent(
  original: string,
  payload: MatrixUnitPayload,
  mentionedBefore: readonly string[],
  maxBytes: number,
): Record<string, unknown> {
  const full = payload.content;
  const fresh = payload.mentions.filter((u) => !mentionedBefore.includes(u));
  const content: Record<string, unknown> = {
    msgtype: full.msgtype,
    body: `* ${full.body}`,
    format: full.format,
    formatted_body: `* ${full.formatted_body}`,
    "m.new_content": { ...full, "m.mentions": { user_ids: payload.mentions } },
    "m.relates_to": { rel_type: "m.replace", event_id: original },
    "m.mentions": { user_ids: fresh },
    [SENT_CONTENT_KEY]: { v: 1 },
  };
  if (utf8ByteLength(JSON.stringify(content)) > maxBytes) {
    delete content.format;
    delete content.formatted_body;
    content.body = "* (edited)";
  }
  return content;
}

export function userIdsOf(content: Record<string, unknown> | undefined): string[] {
  const ids = (content?.["m.mentions"] as { user_ids?: unknown } | undefined)?.user_ids;
  return Array.isArray(ids) ? ids.filter((u): u is string => typeof u === "string") : [];
}

export function sameContent(shown: unknown, content: Record<string, unknown>): boolean {
  const ours = content["m.new_content"] as { body?: unknown; formatted_body?: unknown };
  const theirs = shown as { body?: unknown; formatted_body?: unknown } | undefined;
  return theirs?.body === ours.body && theirs?.formatted_body === ours.formatted_body;
}
