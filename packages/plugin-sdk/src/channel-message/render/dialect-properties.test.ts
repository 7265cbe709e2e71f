/**
 * Property-based tests (fast-check) of the dialect serializers and `chunkMarkdown`: random
 * markdown and literal text with marks, links, mentions, entities, emoji and ZWJ sequences, at
 * random limits, in every dialect.
 */
import fc from "fast-check";
import type { Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./chunk-markdown.ts";
import { renderCommonMark, renderGoogleChat } from "./commonmark.ts";
import { renderDiscord } from "./discord.ts";
import { graphemes } from "./graphemes.ts";
import { parseMarkdown } from "./markdown.ts";
import { renderMatrix, renderPlainText } from "./matrix.ts";
import { type LengthMeasure, measureLength } from "./measure.ts";
import { extractMentions } from "./mention.ts";
import { renderSlack, slackMentions } from "./slack.ts";
import { literalTree } from "./tree.ts";

const runs = { numRuns: Number(process.env.FC_RUNS ?? 150) };

const pieces = [
  ..."abcXYZ019.,!?",
  " ",
  " ",
  "\n",
  "\n\n",
  "é",
  "e\u0301",
  "中文",
  "😀",
  "👍🏽",
  "👨‍👩‍👧",
  "🇩🇪",
  "**",
  "*",
  "_",
  "~~",
  "`",
  "&",
  "&amp;",
  "<b>",
  "<",
  ">",
  "# ",
  "- ",
  "1. ",
  "> ",
  "[x](https://e.x/1)",
  "[two words](https://e.x/2)",
  "<@U42>",
  "```ts\n",
  "\n```\n",
];
const textArb = fc.string({ unit: fc.constantFrom(...pieces), maxLength: 60 });

type Dialect = { name: string; serialize: (t: Root) => string; measure: LengthMeasure };
const dialects: Dialect[] = [
  { name: "slack", serialize: (t) => renderSlack(t), measure: "utf16" },
  { name: "discord", serialize: (t) => renderDiscord(t), measure: "utf16" },
  { name: "googleChat", serialize: (t) => renderGoogleChat(t), measure: "utf16" },
  {
    name: "matrix",
    serialize: (t) => JSON.stringify(renderMatrix(t)),
    measure: "utf8Bytes",
  },
];
const dialectArb = fc.constantFrom(...dialects);

/** The serialized form of a single leaf can reach ~40 units (a link); Matrix adds ~90 bytes. */
const limitFor = (d: Dialect, extra: number) => (d.name === "matrix" ? 240 : 45) + extra;

const noSpace = (s: string) => s.replace(/\s+/g, "");
/**
 * Discord shows `&amp;` as typed (it decodes no entities) where a CommonMark parser would decode
 * it: the oracle compares Discord output with a placeholder for "&".
 */
const asDiscordShows = (s: string) => s.replaceAll("&", "＆");
/** Discord's reading of markdown, as far as CommonMark + GFM can model it: no indented code. */
const parseAsDiscord = (s: string) =>
  fromMarkdown(s, {
    extensions: [gfm({ singleTilde: false }), { disable: { null: ["codeIndented"] } }],
    mdastExtensions: [gfmFromMarkdown()],
  });

function tree(md: string): Root {
  return extractMentions(parseMarkdown(md), slackMentions);
}

describe("chunkMarkdown properties", () => {
  it("never exceeds the limit in the serialized form, and every chunk is well-formed UTF-16", () => {
    fc.assert(
      fc.property(textArb, dialectArb, fc.integer({ min: 0, max: 120 }), (md, d, extra) => {
        const maxLength = limitFor(d, extra);
        for (const c of chunkMarkdown(tree(md), { ...d, maxLength })) {
          expect(measureLength(c.text, d.measure)).toBeLessThanOrEqual(maxLength);
          expect(c.text.isWellFormed()).toBe(true);
          expect(c.text).toBe(d.serialize(c.tree));
        }
      }),
      runs,
    );
  });

  it("keeps the visible text: chunks' plain texts concatenate to the whole, cut at grapheme boundaries", () => {
    fc.assert(
      fc.property(textArb, dialectArb, fc.integer({ min: 0, max: 80 }), (md, d, extra) => {
        const whole = tree(md);
        const plain = renderPlainText(whole);
        const chunks = chunkMarkdown(whole, { ...d, maxLength: limitFor(d, extra) });
        expect(chunks.map((c) => noSpace(renderPlainText(c.tree))).join("")).toBe(noSpace(plain));
        // Literal text: each chunk is an exact run of the input starting and ending on a grapheme
        // boundary (blank runs between chunks are left out).
        const text = md.replaceAll("\r", "");
        const bounds = new Set([0, text.length, ...[...graphemes(text)].map((g) => g.index)]);
        let pos = 0;
        for (const c of chunkMarkdown(literalTree(text), { ...d, maxLength: limitFor(d, extra) })) {
          const v = renderPlainText(c.tree);
          const at = text.indexOf(v, pos);
          expect(at).toBeGreaterThanOrEqual(pos);
          expect(text.slice(pos, at).trim()).toBe("");
          expect(bounds.has(at) && bounds.has(at + v.length)).toBe(true);
          pos = at + v.length;
        }
        expect(text.slice(pos).trim()).toBe("");
      }),
      runs,
    );
  });

  it("never splits a link or a mention that fits", () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 0, max: 60 }), (md, extra) => {
        const whole = tree(md);
        const all = renderSlack(whole);
        const atoms = all.match(/<[^<>]+>/g) ?? [];
        const chunks = chunkMarkdown(whole, { maxLength: 45 + extra, serialize: renderSlack });
        const inChunks = chunks.flatMap((c) => c.text.match(/<[^<>]+>/g) ?? []);
        expect(inChunks).toEqual(atoms);
      }),
      runs,
    );
  });

  it("Discord chunks parse back to the same visible text (marks re-opened, never literal)", () => {
    // Words and marks apart by spaces: intraword marks next to punctuation (`a*~~*`) do not
    // survive any markdown round trip and are not what this property is about. No fences: a
    // fence in a nested list item is indented code to the CommonMark oracle, not to Discord.
    const spaced = fc
      .array(fc.constantFrom(...pieces.filter((p) => !p.includes("```"))), { maxLength: 30 })
      .map((a) => a.join(" "));
    fc.assert(
      fc.property(spaced, fc.integer({ min: 0, max: 60 }), (md, extra) => {
        const whole = parseMarkdown(md);
        const chunks = chunkMarkdown(whole, { maxLength: 45 + extra, serialize: renderDiscord });
        const back = chunks
          .map((c) => noSpace(renderPlainText(parseAsDiscord(asDiscordShows(c.text)))))
          .join("");
        // No backslash is typed (see `pieces`): one left in the parsed text is GFM's autolink
        // literal taking an escaped `\)` into a URL, a quirk of the oracle, not of Discord.
        expect(back.replaceAll("\\", "")).toBe(asDiscordShows(noSpace(renderPlainText(whole))));
      }),
      runs,
    );
  });
});

describe("dialect escaping properties", () => {
  const literalArb = fc.oneof(textArb, fc.string({ unit: "grapheme", maxLength: 40 }));
  const decodeSlack = (s: string) =>
    s
      .replaceAll("\u200b", "")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");

  it("literal text shows as typed in every dialect, escaped exactly once", () => {
    fc.assert(
      fc.property(literalArb, (raw) => {
        const text = raw.replace(/\r\n?/g, "\n");
        const t = literalTree(text);
        expect(decodeSlack(renderSlack(t))).toBe(text);
        expect(renderMatrix(t).body).toBe(text);
        const html = renderMatrix(t).formatted_body;
        expect(html.match(/<\/?([a-z]+)/g)?.every((m) => /^<\/?(p|br)$/.test(m)) ?? true).toBe(
          true,
        );
        // Discord and CommonMark escape with backslashes: parsing the output back (CommonMark,
        // without GFM's autolink literals, which would take a `\)` into a URL) gives the text.
        const discordBack = renderPlainText(fromMarkdown(asDiscordShows(renderDiscord(t))));
        expect(noSpace(discordBack.replaceAll("\u200b", ""))).toBe(noSpace(asDiscordShows(text)));
        const commonMarkBack = renderPlainText(fromMarkdown(renderCommonMark(t)));
        expect(noSpace(commonMarkBack)).toBe(noSpace(text));
      }),
      runs,
    );
  });
});
