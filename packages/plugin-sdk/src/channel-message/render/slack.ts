/**
 * Slack mrkdwn (PLATFORMS.md §4): `*b*`, `_i_`, `~s~`, `` `c` ``, ```` ``` ````, `>` quotes,
 * `<url|label>` links and `<@U…>` / `<#C…>` / `<!subteam^S…>` / `<!here>` mentions.
 *
 * Escaping: `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;` (only these three; Slack decodes only
 * them), applied once to text and code, never to the `<…>` the renderer writes itself. mrkdwn has
 * no escape for its mark characters, so a `*`, `_`, `~` or `` ` `` in text is set off with
 * U+200B (zero-width space) on both sides and cannot open or close a mark (not inside a bare
 * `http(s)://` URL, which Slack links as it is).
 * Source: https://api.slack.com/reference/surfaces/formatting#escaping
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

/** Escapes `& < >` for Slack, exactly once (`&amp;` in the input becomes `&amp;amp;`). */
export function escapeSlack(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

const URL_RUN = /(https?:\/\/[^\s<>]+)/;

/**
 * Escapes text and sets mark characters off with U+200B — except inside a bare URL, which Slack
 * links by itself and which a zero-width space would break.
 */
function neutralize(value: string): string {
  return value
    .split(URL_RUN)
    .map((part, i) =>
      i % 2 === 1
        ? escapeSlack(part)
        : escapeSlack(part).replace(/[*_~`]/g, (c) => `${ZWSP}${c}${ZWSP}`),
    )
    .join("");
}

/** Options of {@link slackDialect}. */
export type SlackDialectOptions = {
  /** Which mentions may ping; others are shown as `@label` text. @defaultValue users + channels */
  allowMentions?: AllowedMentions;
};

/**
 * Slack's mention syntax in text: `<@U123>`, `<@W123|alice>`, `<#C123>`, `<#C123|general>`,
 * `<!subteam^S123>`, `<!here>`, `<!channel>`, `<!everyone>`. Use with `extractMentions`.
 */
export const slackMentions: MentionSyntax = {
  pattern: /<([@#]|!subteam\^)([A-Z0-9]+)(?:\|([^<>]*))?>|<!(here|channel|everyone)(?:\|[^<>]*)?>/g,
  parse(m) {
    if (m[4]) return { type: "mention", kind: m[4] === "here" ? "here" : "everyone" };
    const kind = m[1] === "@" ? "user" : m[1] === "#" ? "channel" : "role";
    return { type: "mention", kind, id: m[2] as string, ...(m[3] ? { label: m[3] } : {}) };
  },
};

/**
 * The Slack mrkdwn dialect. Links are `<url|label>` (a `|` or `>` in the label is replaced by
 * a look-alike, since mrkdwn cannot escape them); headings are bold lines.
 */
export function slackDialect(options: SlackDialectOptions = {}): MarkdownDialect {
  const allow = options.allowMentions;
  return {
    name: "slack",
    text: neutralize,
    code: escapeSlack,
    strong: (s) => `*${s}*`,
    emphasis: (s) => `_${s}_`,
    delete: (s) => `~${s}~`,
    inlineCode: (v) => `\`${escapeSlack(v).replaceAll("`", "ˋ")}\``,
    link: (url, label) =>
      `<${escapeSlack(url).replaceAll("|", "%7C")}|${label.replaceAll("|", "│")}>`,
    mention(m) {
      if (!mentionAllowed(m, allow)) return escapeSlack(mentionText(m));
      if (m.kind === "everyone") return "<!channel>";
      if (m.kind === "here") return "<!here>";
      const sigil = m.kind === "user" ? "@" : m.kind === "channel" ? "#" : "!subteam^";
      return `<${sigil}${m.id}>`;
    },
    codeBlock: (v, _lang) => `\`\`\`\n${escapeSlack(v).replaceAll("```", "`ˋ`")}\n\`\`\``,
    heading: (s) => `*${s}*`,
    blockquote: (s) =>
      s
        .split("\n")
        .map((l) => `&gt; ${l}`.trimEnd())
        .join("\n"),
    thematicBreak: "———",
  };
}

/**
 * Renders a tree as Slack mrkdwn (for `chat.postMessage` `text`). Mentions must already be
 * `mention` nodes: run `extractMentions(tree, slackMentions)` first for markdown that carries
 * Slack's own `<@U…>` syntax.
 *
 * @example
 * ```ts
 * renderSlack(parseMarkdown("**Deploy** <b> & [docs](https://e.x)"));
 * // → "*Deploy* &lt;b&gt; &amp; <https://e.x|docs>"
 * ```
 */
export function renderSlack(tree: Root, options: SlackDialectOptions = {}): string {
  return serializeMarkdown(tree, slackDialect(options));
}
