/**
 * The Bot API's wire format for the fake server: error bodies
 * (`{ ok: false, error_code, description, parameters: { retry_after } }`, `retry_after` in
 * seconds) and request payloads (JSON, or multipart for uploads, where grammY sends nested
 * objects as JSON strings and files as parts).
 *
 * @module
 */
import type { Context, FakeErrorAnswer, FakePlatformEnv } from "@herald/plugin-sdk/testing";

/** Renders a platform-neutral error answer the way the Bot API does. */
export function telegramErrorBody(answer: FakeErrorAnswer): unknown {
  const retryAfter =
    answer.retryAfterMs !== undefined ? Math.ceil(answer.retryAfterMs / 1_000) : undefined;
  const description =
    answer.status === 429
      ? `Too Many Requests: retry after ${retryAfter ?? 1}`
      : answer.description.startsWith("scripted fault")
        ? `${answer.status === 400 ? "Bad Request" : answer.code}: ${answer.description}`
        : answer.description;
  return {
    ok: false,
    error_code: answer.status,
    description,
    ...(retryAfter !== undefined ? { parameters: { retry_after: retryAfter } } : {}),
  };
}

/** A thrown Bot API error inside a fake method (rendered by the route wrapper). */
export class FakeBotApiError extends Error {
  readonly status: number;
  readonly description: string;
  /** `parameters.retry_after` of a 429, in seconds. */
  readonly retryAfter: number | undefined;
  constructor(status: number, description: string, retryAfter?: number) {
    super(description);
    this.status = status;
    this.description = description;
    this.retryAfter = retryAfter;
  }
}

/** `400 Bad Request: <what>`. */
export const badRequest = (what: string) => new FakeBotApiError(400, `Bad Request: ${what}`);

const JSON_FIELDS = new Set([
  "entities",
  "caption_entities",
  "reply_markup",
  "reply_parameters",
  "link_preview_options",
  "allowed_updates",
  "reaction",
]);
const INT_FIELDS = new Set([
  "chat_id",
  "message_id",
  "message_thread_id",
  "offset",
  "limit",
  "timeout",
]);

/** The request payload as one object (multipart fields decoded; files as `upload:<name>`). */
export async function readPayload(c: Context<FakePlatformEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (type.includes("multipart/form-data")) {
    const form = await c.req.formData();
    const out: Record<string, unknown> = {};
    const files = new Map<string, string>();
    for (const [k, v] of form.entries()) {
      if (typeof v !== "string") files.set(k, `upload:${v.name}`);
      else if (JSON_FIELDS.has(k)) out[k] = JSON.parse(v);
      else if (INT_FIELDS.has(k) && /^-?\d+$/.test(v)) out[k] = Number(v);
      else out[k] = v;
    }
    for (const [k, v] of Object.entries(out)) {
      if (typeof v === "string" && v.startsWith("attach://")) out[k] = files.get(v.slice(9)) ?? v;
    }
    return out;
  }
  const text = await c.req.text();
  if (!text) return {};
  const body = JSON.parse(text) as Record<string, unknown>;
  if (typeof body.chat_id === "string" && /^-?\d+$/.test(body.chat_id)) {
    body.chat_id = Number(body.chat_id);
  }
  return body;
}

/** Reserved characters MarkdownV2 requires escaped outside entities. */
const MARKDOWN_V2_RESERVED = "_*[]()~`>#+-=|{}.!";

/**
 * The first reserved MarkdownV2 character left unescaped (what makes Telegram answer "can't
 * parse entities"); a simplified check — herald never sends `parse_mode`.
 */
export function unescapedMarkdownV2(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\") {
      i++;
      continue;
    }
    if (MARKDOWN_V2_RESERVED.includes(ch)) return ch;
  }
  return undefined;
}

/** Checks entities against their text (UTF-16 offsets). @throws FakeBotApiError */
export function checkEntities(text: string, entities: unknown): void {
  if (entities === undefined) return;
  if (!Array.isArray(entities)) throw badRequest("can't parse entities: expected an Array");
  for (const [i, e] of entities.entries()) {
    const { offset, length, type } = e as { offset?: unknown; length?: unknown; type?: unknown };
    if (
      typeof type !== "string" ||
      typeof offset !== "number" ||
      typeof length !== "number" ||
      offset < 0 ||
      length <= 0 ||
      offset + length > text.length
    ) {
      throw badRequest(`can't parse entities: entity ${i} is out of the text bounds`);
    }
    if (type === "text_link" && typeof (e as { url?: unknown }).url !== "string") {
      throw badRequest(`can't parse entities: text_link entity ${i} has no URL`);
    }
  }
}
