/**
 * A neutral message card (seed "Channel mapping": cards; DESIGN §8 "Shared utilities"): a title,
 * markdown body, fields, an image and actions, which each channel renders natively (Slack
 * blocks, Discord embeds, Google Chat cardsV2, Telegram text + inline keyboard) or, where it has
 * no cards, as its text fallback. Per-channel extras go in `ChannelMessage.channelOptions`
 * under the channel's id, never in `raw`.
 *
 * @module
 */

/** A link or a button on a card. */
export type MessageCardAction =
  | {
      kind: "link";
      label: string;
      /** Absolute `https:` (or `http:`) URL. */
      url: string;
    }
  | {
      kind: "button";
      label: string;
      /** What the platform sends back when it is pressed (Telegram `callback_data`, Slack `action_id`). */
      id: string;
      /** Extra value sent with the press (Slack `value`). */
      value?: string;
      style?: "primary" | "danger";
    };

/** A labelled value on a card. */
export type MessageCardField = {
  label: string;
  /** Markdown. */
  value: string;
  /** Shown beside its neighbours when the platform can. @defaultValue false */
  inline?: boolean;
};

/** A platform-neutral card. Plain JSON. */
export type MessageCard = {
  title?: string;
  subtitle?: string;
  /** Body as markdown. */
  markdown?: string;
  fields?: MessageCardField[];
  /** Absolute URL of an image. */
  imageUrl?: string;
  actions?: MessageCardAction[];
  /**
   * What a channel without cards shows instead, as markdown (also what notifications and
   * screen readers get where the platform asks for one, e.g. Slack `text`).
   * @defaultValue {@link cardFallbackMarkdown} of the card
   */
  fallback?: string;
};

/**
 * Options for one channel, keyed by channel id on `ChannelMessage.channelOptions`
 * (`{ telegram: { inlineKeyboard: … } }`). Plain JSON; each channel validates its own.
 */
export type ChannelOptions = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * The card as markdown, for channels without cards: its `fallback` when set, else the title in
 * bold, the subtitle, the body, one `**label:** value` line per field, links as markdown links
 * and buttons as a list of their labels.
 *
 * @example
 * cardFallbackMarkdown({ title: "Deploy", fields: [{ label: "env", value: "prod" }] });
 * // "**Deploy**\n\n**env:** prod"
 */
export function cardFallbackMarkdown(card: MessageCard): string {
  if (card.fallback !== undefined) return card.fallback;
  const blocks: string[] = [];
  const head = [card.title ? `**${card.title}**` : "", card.subtitle ?? ""].filter(Boolean);
  if (head.length) blocks.push(head.join("\n"));
  if (card.markdown) blocks.push(card.markdown);
  if (card.fields?.length) {
    blocks.push(card.fields.map((f) => `**${f.label}:** ${f.value}`).join("\n"));
  }
  if (card.imageUrl) blocks.push(`[image](${card.imageUrl})`);
  const links = (card.actions ?? []).filter((a) => a.kind === "link");
  const buttons = (card.actions ?? []).filter((a) => a.kind === "button");
  if (links.length) blocks.push(links.map((a) => `[${a.label}](${a.url})`).join(" · "));
  if (buttons.length) blocks.push(buttons.map((a) => `- ${a.label}`).join("\n"));
  return blocks.join("\n\n");
}

/**
 * The message as a channel without cards receives it: the card's fallback markdown appended to
 * the body (after a blank line) and `card` removed. A message without a card is returned as is.
 * The SDK applies it for every adapter whose capabilities do not declare `cards`.
 */
export function withCardFallback<T extends { body?: { markdown: string }; card?: MessageCard }>(
  message: T,
): T {
  const { card, ...rest } = message;
  if (!card) return message;
  const fallback = cardFallbackMarkdown(card);
  const markdown = [message.body?.markdown, fallback].filter((part) => part?.trim()).join("\n\n");
  return { ...rest, body: { markdown } } as T; // a `plain` body no longer matches: dropped
}
