/**
 * Rendering for Telegram: markdown → plain text + `entities` (offsets in UTF-16 units), never a
 * `parse_mode`, so "can't parse entities" cannot happen (CASES C18); a literal body (the
 * activity log) shown as typed, without entities; text chunked at 4096 UTF-16 units without
 * splitting a surrogate pair or grapheme (C16), nor a link or inline code that fits; media with captions of at
 * most 1024 units, the overflow following as text (C19); an inline keyboard on the last unit.
 *
 * Source: https://core.telegram.org/bots/api#formatting-options (entities),
 * https://core.telegram.org/bots/api#sendmessage, https://core.telegram.org/bots/api#sendphoto
 *
 * @module
 */
import type { InlineKeyboardButton, InlineKeyboardMarkup, MessageEntity } from "@grammyjs/types";
import {
  bodyTree,
  type ChannelMessage,
  channelOptionsOf,
  chunkTextWithEntities,
  type MessageAttachment,
  type MessageRenderAdapter,
  type RenderedMessageUnit,
  renderTextWithEntities,
  splitCaption,
  type TextEntity,
  type TextWithEntities,
  withChannelOptions,
  z,
} from "@herald/plugin-sdk/channel-message";
import { keyboardOf } from "./actions.ts";
import type { TelegramConfig } from "./config.ts";
import { TelegramRenderError } from "./errors.ts";

/** The Bot API method that sends a media attachment. */
export type TelegramMediaMethod =
  | "sendPhoto"
  | "sendDocument"
  | "sendVoice"
  | "sendAudio"
  | "sendVideo"
  | "sendSticker";

/** Where a media file comes from: a Telegram `file_id`, a URL Telegram fetches, a local file. */
export type TelegramMediaSource =
  | { fileId: string }
  | { url: string }
  | { path: string; fileName?: string };

/** The payload of one Telegram unit (one Bot API call). Plain JSON: it is stored on the intent. */
export type TelegramUnitPayload =
  | {
      type: "text";
      text: string;
      entities: MessageEntity[];
      replyMarkup?: InlineKeyboardMarkup;
    }
  | {
      type: "media";
      method: TelegramMediaMethod;
      source: TelegramMediaSource;
      caption?: string;
      captionEntities?: MessageEntity[];
      replyMarkup?: InlineKeyboardMarkup;
    };

/**
 * Telegram-only send options of an outbound message, carried in
 * `ChannelMessage.channelOptions.telegram` (set them with {@link withTelegramOptions}).
 */
export type TelegramSendOptions = {
  /**
   * Inline keyboard rows, attached to the last message of the batch.
   * https://core.telegram.org/bots/api#inlinekeyboardmarkup
   */
  inlineKeyboard?: InlineKeyboardButton[][];
};

/** Where Telegram's options live on a message: `channelOptions[<channel id>]`. */
const TELEGRAM_OPTIONS_KEY = "telegram";

const sendOptionsSchema = z.object({
  inlineKeyboard: z
    .array(z.array(z.looseObject({ text: z.string().min(1) })).min(1))
    .min(1)
    .optional(),
});

/**
 * Returns a copy of `message` carrying Telegram send options (the SDK's `withChannelOptions`
 * under the `telegram` key).
 *
 * @example
 * await runtime.send(withTelegramOptions(message, {
 *   inlineKeyboard: [[{ text: "Yes", callback_data: "yes" }, { text: "No", callback_data: "no" }]],
 * }));
 */
export function withTelegramOptions(
  message: ChannelMessage,
  options: TelegramSendOptions,
): ChannelMessage {
  return withChannelOptions(message, TELEGRAM_OPTIONS_KEY, options);
}

/**
 * The Telegram send options of a message (`{}` when it has none).
 * @throws ChannelOptionsError naming the field path when they are malformed (the send fails as
 *   `invalid_payload` instead of silently dropping a keyboard).
 */
export function telegramOptionsOf(message: ChannelMessage): TelegramSendOptions {
  const options = channelOptionsOf(message, TELEGRAM_OPTIONS_KEY, sendOptionsSchema);
  return (options ?? {}) as unknown as TelegramSendOptions;
}

/** SDK entity → Telegram `MessageEntity` (`link` → `text_link`). */
export function toTelegramEntity(e: TextEntity): MessageEntity {
  if (e.type === "link")
    return { type: "text_link", offset: e.offset, length: e.length, url: e.url };
  if (e.type === "pre") {
    return e.language
      ? { type: "pre", offset: e.offset, length: e.length, language: e.language }
      : { type: "pre", offset: e.offset, length: e.length };
  }
  return { type: e.type, offset: e.offset, length: e.length };
}

const METHOD_BY_KIND: Record<Exclude<MessageAttachment["kind"], "link">, TelegramMediaMethod> = {
  image: "sendPhoto",
  file: "sendDocument",
  voice: "sendVoice",
  audio: "sendAudio",
  video: "sendVideo",
  sticker: "sendSticker",
};

function sourceOf(a: MessageAttachment): TelegramMediaSource {
  if (a.platformFileId) return { fileId: a.platformFileId };
  if (a.url) return { url: a.url };
  if (a.path) return a.name ? { path: a.path, fileName: a.name } : { path: a.path };
  throw new TelegramRenderError(
    `a ${a.kind} attachment needs platformFileId, url or path (got none)`,
  );
}

function formatted(markdown: string | undefined): TextWithEntities<TextEntity> {
  return markdown ? renderTextWithEntities(markdown) : { text: "", entities: [] };
}

/**
 * The body as text + entities, from the SDK's shared `bodyTree`: markdown is rendered, a
 * literal body (the activity log's) or a plain-only one is text without entities, shown as
 * typed.
 */
function bodyOf(message: ChannelMessage): TextWithEntities<TextEntity> {
  return renderTextWithEntities(bodyTree(message.body));
}

/** Links and inline code are cut by a chunk boundary only when nothing else fits. */
const keepWhole = (e: TextEntity) => e.type === "link" || e.type === "code";

const blank = (t: TextWithEntities<TextEntity> | undefined) => !t || t.text.trim() === "";

/** Limits the renderer works to, in UTF-16 units. */
export type RenderLimits = Pick<
  TelegramConfig,
  "maxTextLength" | "maxCaptionLength" | "captionOverflow"
>;

/**
 * Renders a message into Telegram payloads, in order: each attachment (the first one captioned
 * with the body when it has no caption of its own), the caption overflow right after its
 * media, then the body's text chunks. Links become text lines.
 *
 * @throws TelegramRenderError when there is nothing to send, or an attachment has no source.
 */
export function renderPayloads(
  message: ChannelMessage,
  limits: RenderLimits,
): TelegramUnitPayload[] {
  const body = bodyOf(message);
  const media = (message.attachments ?? []).filter((a) => a.kind !== "link");
  const links = (message.attachments ?? []).filter((a) => a.kind === "link");
  const out: TelegramUnitPayload[] = [];
  const texts = (t: TextWithEntities<TextEntity> | undefined) => {
    if (blank(t)) return;
    for (const c of chunkTextWithEntities(t as TextWithEntities<TextEntity>, {
      maxLength: limits.maxTextLength,
      keepWhole,
    })) {
      out.push({ type: "text", text: c.text, entities: c.entities.map(toTelegramEntity) });
    }
  };
  let bodyUsed = false;
  for (const a of media) {
    const method = METHOD_BY_KIND[a.kind as keyof typeof METHOD_BY_KIND];
    let caption = a.caption ? formatted(a.caption) : undefined;
    if (!caption && !bodyUsed && !blank(body)) {
      caption = body;
      bodyUsed = true;
    }
    const source = sourceOf(a);
    if (method === "sendSticker" || blank(caption)) {
      out.push({ type: "media", method, source });
      texts(caption);
      continue;
    }
    const split = splitCaption(caption as TextWithEntities<TextEntity>, {
      maxLength: limits.maxCaptionLength,
      overflow: limits.captionOverflow,
    });
    out.push({
      type: "media",
      method,
      source,
      ...(split.caption
        ? {
            caption: split.caption.text,
            captionEntities: split.caption.entities.map(toTelegramEntity),
          }
        : {}),
    });
    texts(split.rest);
  }
  if (!bodyUsed) texts(body);
  texts({ text: links.map((l) => l.url ?? l.name ?? "").join("\n"), entities: [] });
  if (out.length === 0) {
    throw new TelegramRenderError(`message ${message.id} has no text and no attachments to send`);
  }
  return out;
}

/**
 * The render adapter: payloads become units (kind `text`, `media`, or `voice` for voice notes);
 * the inline keyboard goes on the last unit. Every unit is required and the batch retries only
 * the units that are missing (`all_or_retry_remaining`).
 */
export function createRender(limits: RenderLimits): MessageRenderAdapter {
  return {
    render(message, ctx) {
      const payloads = renderPayloads(message, limits);
      // The keyboard of `channelOptions.telegram`, then the message's buttons ([H23]).
      const rows = [
        ...(telegramOptionsOf(message).inlineKeyboard ?? []),
        ...(message.actions?.length ? keyboardOf(message.actions) : []),
      ];
      const keyboard = rows.length > 0 ? rows : undefined;
      const last = payloads.at(-1);
      if (keyboard && last) last.replyMarkup = { inline_keyboard: keyboard };
      const units: RenderedMessageUnit[] = payloads.map((payload, index) => ({
        index,
        kind: payload.type === "text" ? "text" : payload.method === "sendVoice" ? "voice" : "media",
        payload,
        required: true,
      }));
      return { idempotencyKey: ctx.idempotencyKey, atomicity: "all_or_retry_remaining", units };
    },
  };
}
