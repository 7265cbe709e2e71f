/**
 * Rendering for Google Chat: the body's markdown AST written as Chat `text` with
 * `markupSyntax: MARKUP_SYNTAX_MARKDOWN` (CommonMark; mentions `<users/…>`), chunked with the
 * SDK's inline-aware `chunkMarkdown` at `maxTextLength` characters measured on the serialized
 * text (never inside a grapheme, a link or a mark; fences re-opened). A literal body (the
 * activity log) is text nodes only, escaped, so it shows as typed. A `card` becomes the last
 * unit: `cardsV2` from the SDK's neutral card, with the card's fallback as `fallbackText` (what
 * notifications and clients without cards show); with `cards: false` the fallback markdown is
 * appended to the body instead (the SDK's `withCardFallback`, applied by
 * `defineChannelMessageAdapter` when `capabilities.cards` is false). The message's `actions`
 * ([H23]) join that card's buttons (or make a card of their own, `actions.ts`). Attachments are sent as link lines (the
 * Chat API uploads need user authentication).
 *
 * Source: https://developers.google.com/workspace/chat/format-messages,
 * https://developers.google.com/workspace/chat/api/reference/rest/v1/cards
 *
 * @module
 */
import type { chat_v1 } from "@googleapis/chat";
import {
  bodyTree,
  type ChannelMessage,
  cardFallbackMarkdown,
  chunkMarkdown,
  literalTree,
  type MessageCard,
  type MessageRenderAdapter,
  parseMarkdown,
  type RenderedMessageUnit,
  renderGoogleChat,
  renderPlainText,
} from "@herald/plugin-sdk/channel-message";
import { cardWithActions } from "./actions.ts";
import type { GoogleChatConfig } from "./config.ts";
import { GoogleChatRenderError } from "./errors.ts";

/** The markup syntax herald writes `text` in. */
export const MARKUP_SYNTAX = "MARKUP_SYNTAX_MARKDOWN";

/** The payload of one Google Chat unit: the body of one `spaces.messages.create`. */
export type GoogleChatUnitPayload = {
  /** Chat text (CommonMark). */
  text?: string;
  /** Cards (one, from the neutral card). */
  cardsV2?: chat_v1.Schema$CardWithId[];
  /** Plain text shown where cards cannot be (notifications). */
  fallbackText?: string;
};

function attachmentLine(a: NonNullable<ChannelMessage["attachments"]>[number]): string {
  const where = a.url ?? a.name ?? a.platformFileId ?? a.path ?? "";
  return `[${a.kind}${where ? `: ${where}` : ""}]${a.caption ? ` ${a.caption}` : ""}`;
}

/** Markdown of a card part as Chat card text (cards take a small HTML subset: plain text is safe). */
const cardText = (markdown: string): string => renderPlainText(parseMarkdown(markdown));

/**
 * The neutral card as one cardsV2 card: header (title, subtitle), the body as a text
 * paragraph, fields as decorated texts, the image, links and buttons in a button list.
 * Button presses come back as `CARD_CLICKED` events carrying the action's `id` as function.
 */
export function cardV2Of(card: MessageCard, cardId: string): chat_v1.Schema$CardWithId {
  const widgets: chat_v1.Schema$GoogleAppsCardV1Widget[] = [];
  if (card.markdown) widgets.push({ textParagraph: { text: cardText(card.markdown) } });
  for (const f of card.fields ?? []) {
    widgets.push({ decoratedText: { topLabel: f.label, text: cardText(f.value), wrapText: true } });
  }
  if (card.imageUrl) widgets.push({ image: { imageUrl: card.imageUrl } });
  const buttons = (card.actions ?? []).map(
    (a): chat_v1.Schema$GoogleAppsCardV1Button =>
      a.kind === "link"
        ? { text: a.label, onClick: { openLink: { url: a.url } } }
        : {
            text: a.label,
            onClick: {
              action: {
                function: a.id,
                ...(a.value !== undefined
                  ? { parameters: [{ key: "value", value: a.value }] }
                  : {}),
              },
            },
          },
  );
  if (buttons.length) widgets.push({ buttonList: { buttons } });
  return {
    cardId,
    card: {
      ...(card.title || card.subtitle
        ? {
            header: {
              ...(card.title ? { title: card.title } : {}),
              ...(card.subtitle ? { subtitle: card.subtitle } : {}),
            },
          }
        : {}),
      sections: widgets.length ? [{ widgets }] : [],
    },
  };
}

/**
 * The render adapter.
 * @throws GoogleChatRenderError when the message has neither text, attachments nor a card.
 */
export function createRender(config: GoogleChatConfig): MessageRenderAdapter {
  const maxLength = config.maxTextLength;
  return {
    render(message, ctx) {
      const serialize = (t: Parameters<typeof renderGoogleChat>[0]) => renderGoogleChat(t);
      const lines = (message.attachments ?? []).map(attachmentLine);
      const trees = [
        ...(lines.length ? [literalTree(lines.join("\n"))] : []),
        bodyTree(message.body),
      ];
      const texts = trees
        .flatMap((tree) => chunkMarkdown(tree, { maxLength, serialize }).map((c) => c.text))
        .filter((t) => t.trim() !== "");
      const payloads: GoogleChatUnitPayload[] = texts.map((text) => ({ text }));
      const card = cardWithActions(message);
      if (card) {
        payloads.push({
          cardsV2: [cardV2Of(card, "herald-card")],
          fallbackText: cardText(cardFallbackMarkdown(card)),
        });
      }
      if (payloads.length === 0) {
        throw new GoogleChatRenderError(`message ${message.id} has no text, attachment or card`);
      }
      const units: RenderedMessageUnit[] = payloads.map((payload, index) => ({
        index,
        kind: payload.cardsV2 ? "card" : "text",
        payload,
        required: true,
      }));
      return { idempotencyKey: ctx.idempotencyKey, atomicity: "all_or_retry_remaining", units };
    },
  };
}
