/**
 * Discord markdown (PLATFORMS.md §4): `**b**`, `*i*`, `~~s~~`, `` `c` ``, fences, `> ` quotes,
 * `#`–`###` headings, `[label](url)` masked links, mentions `<@id>`, `<#id>`, `<@&id>`.
 *
 * Escaping: markdown punctuation in text gets a backslash (Discord shows `\*` as `*`); a `<` is
 * escaped so typed text never becomes a mention, and `@everyone` / `@here` typed in text get a
 * U+200B after the `@`. Mentions of roles, `@everyone` and `@here` are neutralized the same way
 * unless allowed. Send with `allowed_mentions` set to match, as a second line of defence.
 *
 * @module
 */
import type { Root } from "mdast";
import {
  type AllowedMentions,
  type MentionSyntax,
  mentionAllowed,
  mentionText,
} from "./mention.ts";
import { type MarkdownDialect, serializeMarkdown } from "./walk.ts";

const ZWSP = "\u200b";

/** Backslash-escapes Discord markdown in `text` and defuses `@everyone` / `@here`. */
export function escapeDiscord(text: string): string {
  return text
    .replace(/[\\*_~`|<>#+=\-[\]()]/g, "\\$&")
    .replace(/@(everyone|here)/g, `@${ZWSP}$1`)
    .replace(/^(\s*\d+)\./gm, "$1\\.");
}

/** Options of {@link discordDialect}. */
export type DiscordDialectOptions = {
  /** Which mentions may ping. @defaultValue users + channels; no roles, no @everyone/@here */
  allowMentions?: AllowedMentions;
};

/** Discord's mention syntax in text: `<@id>`, `<@!id>`, `<#id>`, `<@&id>`, `@everyone`, `@here`. */
export const discordMentions: MentionSyntax = {
  pattern: /<(@!?|#|@&)(\d+)>|@(everyone|here)\b/g,
  parse(m) {
    if (m[3]) return { type: "mention", kind: m[3] === "here" ? "here" : "everyone" };
    const kind = m[1] === "#" ? "channel" : m[1] === "@&" ? "role" : "user";
    return { type: "mention", kind, id: m[2] as string };
  },
};

function fence(value: string): string {
  let ticks = "```";
  while (value.includes(ticks)) ticks += "`";
  return ticks;
}

/** The Discord markdown dialect. */
export function discordDialect(options: DiscordDialectOptions = {}): MarkdownDialect {
  const allow = options.allowMentions;
  return {
    name: "discord",
    text: escapeDiscord,
    code: (v) => v,
    strong: (s) => `**${s}**`,
    emphasis: (s) => `*${s}*`,
    delete: (s) => `~~${s}~~`,
    inlineCode: (v) => (v.includes("`") ? `\`\` ${v} \`\`` : `\`${v}\``),
    link: (url, label) =>
      `[${label}](${url.replace(/[()\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)})`,
    mention(m) {
      if (!mentionAllowed(m, allow)) return escapeDiscord(mentionText(m));
      if (m.kind === "everyone") return "@everyone";
      if (m.kind === "here") return "@here";
      return `<${m.kind === "user" ? "@" : m.kind === "channel" ? "#" : "@&"}${m.id}>`;
    },
    codeBlock(v, lang) {
      const ticks = fence(v);
      return `${ticks}${lang ?? ""}\n${v}\n${ticks}`;
    },
    heading: (s, depth) => (depth <= 3 ? `${"#".repeat(depth)} ${s}` : `**${s}**`),
    blockquote: (s) =>
      s
        .split("\n")
        .map((l) => `> ${l}`)
        .join("\n"),
    thematicBreak: "———",
  };
}

/**
 * Renders a tree as Discord markdown (message `content`). For markdown carrying Discord's own
 * `<@id>` syntax, run `extractMentions(tree, discordMentions)` first.
 *
 * @example
 * ```ts
 * renderDiscord(parseMarkdown("**hi** @everyone"));
 * // → "**hi** @\u200beveryone"
 * ```
 */
export function renderDiscord(tree: Root, options: DiscordDialectOptions = {}): string {
  return serializeMarkdown(tree, discordDialect(options));
}
