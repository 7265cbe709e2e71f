/**
 * Embeds within Discord's limits (CASES C17): a description longer than 4096 characters is
 * split across embeds, a field value longer than 1024 across continuation fields, more than 25
 * fields across embeds; titles, author names, field names and footers are cut (grapheme-safe,
 * with `…`) at their limits; then embeds are packed into messages of at most 10 embeds and
 * 6000 characters in total. Discord never sees an embed it would answer 50035 to.
 *
 * Source: https://discord.com/developers/docs/resources/message#embed-object-embed-limits
 *
 * @module
 */
import { chunkText, truncateText, z } from "@herald/plugin-sdk/channel-message";

/** Discord's embed limits, in characters (UTF-16 units). */
export const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footerText: 2048,
  authorName: 256,
  /** All texts of all embeds of one message together. */
  total: 6000,
  /** Embeds per message. */
  perMessage: 10,
} as const;

/** An embed as herald accepts it (a subset of Discord's embed object, its field names). */
export const discordEmbedSchema = z.strictObject({
  title: z.string().min(1).optional(),
  description: z.string().min(1).optional(),
  url: z.url().optional(),
  color: z.number().int().min(0).max(0xffffff).optional(),
  timestamp: z.iso.datetime().optional(),
  author: z.strictObject({ name: z.string().min(1), url: z.url().optional() }).optional(),
  footer: z.strictObject({ text: z.string().min(1) }).optional(),
  image: z.strictObject({ url: z.url() }).optional(),
  thumbnail: z.strictObject({ url: z.url() }).optional(),
  fields: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        value: z.string().min(1),
        inline: z.boolean().optional(),
      }),
    )
    .optional(),
});

/** A Discord embed (wire shape). */
export type DiscordEmbed = z.output<typeof discordEmbedSchema>;
type Field = NonNullable<DiscordEmbed["fields"]>[number];

const cut = (text: string, max: number) => truncateText(text, max, { ellipsis: "…" });

/** The characters of an embed that count towards the 6000 total. */
export function embedSize(e: DiscordEmbed): number {
  return (
    (e.title?.length ?? 0) +
    (e.description?.length ?? 0) +
    (e.footer?.text.length ?? 0) +
    (e.author?.name.length ?? 0) +
    (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0)
  );
}

function splitField(f: Field): Field[] {
  const name = cut(f.name, EMBED_LIMITS.fieldName);
  if (f.value.length <= EMBED_LIMITS.fieldValue) return [{ ...f, name }];
  return chunkText(f.value, { maxLength: EMBED_LIMITS.fieldValue }).map((c, i) => ({
    name: i === 0 ? name : cut(`${f.name} (cont.)`, EMBED_LIMITS.fieldName),
    value: c.text,
    ...(f.inline !== undefined ? { inline: f.inline } : {}),
  }));
}

/** Splits one embed into embeds that each respect every per-embed limit and the total. */
export function splitEmbed(embed: DiscordEmbed): DiscordEmbed[] {
  const { title, description, fields, footer, author, image, timestamp, ...look } = embed;
  const head: DiscordEmbed = {
    ...look,
    ...(title !== undefined ? { title: cut(title, EMBED_LIMITS.title) } : {}),
    ...(author ? { author: { ...author, name: cut(author.name, EMBED_LIMITS.authorName) } } : {}),
  };
  const tail: Partial<DiscordEmbed> = {
    ...(footer ? { footer: { text: cut(footer.text, EMBED_LIMITS.footerText) } } : {}),
    ...(image ? { image } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
  const color = look.color !== undefined ? { color: look.color } : {};
  const out: DiscordEmbed[] = [];
  // The head's own texts leave this much of the 6000 for the first description piece.
  const headSize = embedSize(head);
  const pieces = description
    ? chunkText(description, {
        maxLength: Math.min(EMBED_LIMITS.description, EMBED_LIMITS.total - headSize),
      }).map((c) => c.text)
    : [];
  out.push({ ...head, ...(pieces[0] !== undefined ? { description: pieces[0] } : {}) });
  for (const piece of pieces.slice(1)) out.push({ ...color, description: piece });
  const tailSize = embedSize(tail as DiscordEmbed);
  for (const field of (fields ?? []).flatMap(splitField)) {
    let last = out[out.length - 1] as DiscordEmbed;
    const full =
      (last.fields?.length ?? 0) >= EMBED_LIMITS.fields ||
      embedSize(last) + field.name.length + field.value.length + tailSize > EMBED_LIMITS.total;
    if (full) {
      last = { ...color };
      out.push(last);
    }
    last.fields = [...(last.fields ?? []), field];
  }
  const last = out[out.length - 1] as DiscordEmbed;
  if (embedSize(last) + tailSize > EMBED_LIMITS.total) out.push({ ...color, ...tail });
  else Object.assign(last, tail);
  return out;
}

/**
 * Splits and packs embeds into groups, one group per message: each group has at most 10
 * embeds and 6000 characters, every embed within its own limits. Order is kept.
 */
export function packEmbeds(embeds: readonly DiscordEmbed[]): DiscordEmbed[][] {
  const groups: DiscordEmbed[][] = [];
  let group: DiscordEmbed[] = [];
  let size = 0;
  for (const embed of embeds.flatMap(splitEmbed)) {
    const n = embedSize(embed);
    if (
      group.length > 0 &&
      (group.length >= EMBED_LIMITS.perMessage || size + n > EMBED_LIMITS.total)
    ) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(embed);
    size += n;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
