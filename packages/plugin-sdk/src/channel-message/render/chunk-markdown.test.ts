import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./chunk-markdown.ts";
import { chunkText } from "./chunk-text.ts";
import { renderDiscord } from "./discord.ts";
import { RenderLimitError } from "./errors.ts";
import { parseMarkdown } from "./markdown.ts";
import { renderMatrix } from "./matrix.ts";
import { extractMentions } from "./mention.ts";
import { renderSlack, slackMentions } from "./slack.ts";
import { literalTree } from "./tree.ts";

const slack = (t: Parameters<typeof renderSlack>[0]) => renderSlack(t);
const discord = (t: Parameters<typeof renderDiscord>[0]) => renderDiscord(t);
const texts = (md: string, maxLength: number, serialize = discord) =>
  chunkMarkdown(parseMarkdown(md), { maxLength, serialize }).map((c) => c.text);

describe("chunkMarkdown", () => {
  it("closes and re-opens a mark at a cut instead of sending literal markup", () => {
    const md = "**one two three four five six**";
    // The old string chunker cuts the markers apart.
    expect(chunkText(md, { maxLength: 16 }).map((c) => c.text)).toContain("**one two three ");
    const parts = texts(md, 16);
    expect(parts).toEqual(["**one two**", "**three four**", "**five six**"]);
  });

  it("keeps a link and a Slack mention whole", () => {
    const tree = extractMentions(
      parseMarkdown("see [the docs](https://e.x/docs) now <@U123456> please"),
      slackMentions,
    );
    const parts = chunkMarkdown(tree, { maxLength: 28, serialize: slack }).map((c) => c.text);
    expect(parts).toEqual(["see", "<https://e.x/docs|the docs>", "now <@U123456> please"]);
  });

  it("measures the serialized form: escaping counts against the limit", () => {
    const parts = chunkMarkdown(literalTree("<<<<<<<<<<"), { maxLength: 12, serialize: slack });
    expect(parts.map((c) => c.text)).toEqual([
      "&lt;&lt;&lt;",
      "&lt;&lt;&lt;",
      "&lt;&lt;&lt;",
      "&lt;",
    ]);
  });

  it("keeps list numbering and fences across chunks", () => {
    const parts = texts(
      "1. alpha\n2. beta\n3. gamma\n\n```ts\nconst a = 1;\nconst b = 2;\n```",
      24,
    );
    expect(parts).toEqual([
      "1\\. alpha\n2\\. beta",
      "3\\. gamma",
      "```ts\nconst a = 1;\n```",
      "```ts\nconst b = 2;\n```",
    ]);
  });

  it("cuts a link longer than the limit into links to the same URL", () => {
    const parts = texts("[a very long label indeed](https://e.x)", 24);
    expect(parts.every((p) => p.endsWith("](https://e.x)") || p.endsWith("](https://e.x) "))).toBe(
      true,
    );
    expect(parts.length).toBeGreaterThan(1);
  });

  it("a link whose URL alone is longer than the limit is cut as plain text, never one grapheme per chunk", () => {
    const url = `https://example.com/${"y".repeat(100)}`;
    for (const md of [url, `see [the docs](${url}) now`, `<${url}>`]) {
      for (const serialize of [discord, slack]) {
        const parts = texts(md, 30, serialize);
        expect(parts.length, md).toBeLessThanOrEqual(Math.ceil(md.length / 30) + 2);
        for (const p of parts) expect(p.length).toBeLessThanOrEqual(30);
      }
    }
    expect(texts(`see [the docs](${url}) now`, 30).join(" ")).toBe("see the docs now");
    expect(texts(url, 30).join("")).toBe(url);
  });

  it("budgets Matrix content in UTF-8 bytes of the whole event content", () => {
    const tree = parseMarkdown(`${"é".repeat(300)}\n\n**${"😀".repeat(100)}**`);
    const chunks = chunkMarkdown(tree, {
      maxLength: 500,
      measure: "utf8Bytes",
      serialize: (t) => JSON.stringify(renderMatrix(t)),
    });
    for (const c of chunks) expect(Buffer.byteLength(c.text)).toBeLessThanOrEqual(500);
    expect(chunks.map((c) => renderMatrix(c.tree).body).join("")).toBe(
      "é".repeat(300) + "😀".repeat(100),
    );
  });

  it("keeps surrogate pairs whole at a 3-unit limit (C16)", () => {
    const parts = chunkMarkdown(parseMarkdown("😀😀😀😀😀"), { maxLength: 3, serialize: discord });
    expect(parts.map((c) => c.text)).toEqual(["😀", "😀", "😀", "😀", "😀"]);
  });

  it("cuts one long line and a long ts fence to Discord's 2000, fence re-opened (C17)", () => {
    const code = Array.from({ length: 150 }, (_, i) => `const value${i} = ${i};`).join("\n");
    const md = `${"x".repeat(4349)}\n\n\`\`\`ts\n${code}\n\`\`\``;
    const parts = texts(md, 2000);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(2000);
    expect(parts.join("").replace(/[^x]/g, "")).toBe("x".repeat(4349));
    const fenced = parts.filter((p) => p.includes("const"));
    expect(fenced.length).toBeGreaterThan(1);
    for (const p of fenced) expect(p).toMatch(/(^|\n)```ts\nconst[\s\S]*;\n```$/);
  });

  it("rejects a limit no mention fits into", () => {
    const tree = extractMentions(parseMarkdown("<@U1234567>"), slackMentions);
    expect(() => chunkMarkdown(tree, { maxLength: 5, serialize: slack })).toThrow(RenderLimitError);
    expect(() => chunkMarkdown(tree, { maxLength: 0, serialize: slack })).toThrow(RenderLimitError);
  });
});
