/**
 * "Text + entities": plain text plus formatting ranges over it, the format Telegram takes
 * (`entities` / `caption_entities`, offsets and lengths in UTF-16 units). It needs no escaping,
 * so it cannot fail to parse (CASES C18).
 *
 * @module
 */

/**
 * The least an entity needs for the chunkers: a range of the text in UTF-16 units. Platform
 * entity types (Telegram's `MessageEntity`) fit as they are; extra fields are carried along.
 */
export type TextEntityRange = {
  /** Start, in UTF-16 units from the start of the text. */
  offset: number;
  /** Length in UTF-16 units (> 0). */
  length: number;
};

/**
 * A formatting range produced by {@link renderTextWithEntities}, in platform-neutral names
 * (a Telegram plugin maps `link` to `text_link`, `strikethrough` stays, …). Ranges nest (bold
 * inside a link) but never overlap partially; `code` and `pre` contain no other entity and
 * `blockquote` is never nested.
 */
export type TextEntity =
  | (TextEntityRange & { type: "bold" | "italic" | "strikethrough" | "code" | "blockquote" })
  | (TextEntityRange & {
      type: "pre";
      /** The fence's language (first word of the info string), when given. */
      language?: string;
    })
  | (TextEntityRange & {
      type: "link";
      /** Absolute URL (has a scheme such as `https:` or `mailto:`). */
      url: string;
    });

/** Plain text with formatting entities whose ranges lie inside it. */
export type TextWithEntities<T extends TextEntityRange = TextEntity> = {
  text: string;
  /** Sorted by offset, outer ranges before the ranges they contain. */
  entities: T[];
};
