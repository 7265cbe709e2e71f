import { describe, expect, it } from "vitest";
import { chunkText } from "./chunk-text.ts";
import { RenderLimitError } from "./errors.ts";
import { utf8ByteLength } from "./measure.ts";

const texts = (text: string, maxLength: number) =>
  chunkText(text, { maxLength }).map((c) => c.text);

describe("chunkText", () => {
  it("C16: cuts five emoji at 3 UTF-16 units into whole emoji, no U+FFFD", () => {
    const chunks = texts("😀😀😀😀😀", 3);
    expect(chunks).toEqual(["😀", "😀", "😀", "😀", "😀"]);
    for (const c of chunks) {
      expect(c.isWellFormed()).toBe(true);
      expect(c).not.toContain("\uFFFD");
    }
  });

  it("keeps ZWJ sequences, flags and combining marks whole", () => {
    const family = "👨‍👩‍👧"; // 8 UTF-16 units
    expect(texts(`${family}${family}`, 10)).toEqual([family, family]);
    expect(texts("🇩🇪🇫🇷", 5)).toEqual(["🇩🇪", "🇫🇷"]);
    expect(texts("e\u0301e\u0301e\u0301", 4)).toEqual(["e\u0301e\u0301", "e\u0301"]);
  });

  it("splits a grapheme longer than the limit at code points, never inside a surrogate pair", () => {
    // 🇩🇪 is one grapheme of two regional indicators, 4 UTF-16 units.
    expect(texts("🇩🇪", 3)).toEqual(["🇩", "🇪"]);
    const zalgo = `a${"\u0301".repeat(9)}`;
    expect(texts(zalgo, 4)).toEqual([
      `a${"\u0301".repeat(3)}`,
      "\u0301".repeat(4),
      "\u0301".repeat(2),
    ]);
  });

  it("throws RenderLimitError when one code point alone exceeds the limit", () => {
    expect(() => chunkText("a😀", { maxLength: 1 })).toThrow(RenderLimitError);
    expect(() => chunkText("abc", { maxLength: 0 })).toThrow(/positive integer/);
    expect(() => chunkText("abc", { maxLength: 2.5 })).toThrow(RenderLimitError);
  });

  it("C17: one 4349-character line at Discord's 2000 becomes 2000 + 2000 + 349", () => {
    const chunks = chunkText("x".repeat(4349), { maxLength: 2000 });
    expect(chunks.map((c) => c.text.length)).toEqual([2000, 2000, 349]);
    expect(chunks.map((c) => c.text).join("")).toBe("x".repeat(4349));
  });

  it("C17: a 3000-character ts fence at 2000 is closed and re-opened with its language", () => {
    const body = Array.from({ length: 150 }, (_, i) => `let v${String(i).padStart(3, "0")} = ${i};`)
      .join("\n")
      .slice(0, 3000);
    const input = `Here is the code:\n\n\`\`\`ts\n${body}\n\`\`\`\n\nDone.`;
    const chunks = chunkText(input, { maxLength: 2000 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(2000);
      const fenceLines = c.text.split("\n").filter((l) => l.startsWith("```"));
      expect(fenceLines.length % 2, c.text).toBe(0);
    }
    expect(chunks[0]?.text.startsWith("Here is the code:\n\n```ts\n")).toBe(true);
    expect(chunks[0]?.text.endsWith("\n```")).toBe(true);
    expect(chunks[1]?.reopen).toBe("```ts\n");
    expect(chunks[1]?.text.startsWith("```ts\nlet v")).toBe(true);
    expect(chunks.at(-1)?.text.endsWith("```\n\nDone.")).toBe(true);
    expect(
      chunks.map((c) => c.text.slice(c.reopen.length, c.text.length - c.close.length)).join(""),
    ).toBe(input);
  });

  it("C17: a fence that is one long line is cut mid-line, closed on a new line and re-opened", () => {
    const input = `\`\`\`ts\n${"y".repeat(3000)}\n\`\`\``;
    const chunks = chunkText(input, { maxLength: 2000 });
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(2000);
    expect(chunks[0]?.close).toBe("\n```");
    expect(chunks[1]?.text.startsWith("```ts\nyyy")).toBe(true);
  });

  it("re-opens tilde and long fences with their own marker and full info string", () => {
    const input = `~~~~python title="a.py"\n${"print(1)\n".repeat(20)}~~~~\n`;
    const chunks = chunkText(input, { maxLength: 80 });
    expect(chunks[0]?.close).toBe("~~~~");
    expect(chunks[1]?.reopen).toBe('~~~~python title="a.py"\n');
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(80);
  });

  it("treats a fence without a closing line as running to the end, like CommonMark", () => {
    const input = `\`\`\`\n${"z\n".repeat(30)}`;
    const chunks = chunkText(input, { maxLength: 30 });
    expect(chunks.slice(0, -1).every((c) => c.close === "```")).toBe(true);
    expect(chunks.at(-1)?.close).toBe("");
  });

  it("prefers a blank line, then a line break, then a space", () => {
    const para = `${"a".repeat(30)}\n\n${"b".repeat(30)}`;
    expect(texts(para, 40)).toEqual([`${"a".repeat(30)}\n\n`, "b".repeat(30)]);
    const lines = `${"a".repeat(15)} ${"a".repeat(10)}\n${"b".repeat(20)}`;
    expect(texts(lines, 40)[0]).toBe(`${"a".repeat(15)} ${"a".repeat(10)}\n`);
    expect(texts("alpha beta gamma delta", 12)).toEqual(["alpha beta ", "gamma delta"]);
  });

  it("passes over an early line break for a later one so chunks stay at least half full", () => {
    const input = `hi\n\n${"line of code\n".repeat(10)}`;
    const [first] = texts(input, 60);
    expect(first?.length).toBeGreaterThan(30);
    expect(first?.endsWith("\n")).toBe(true);
  });

  it("drops whitespace-only chunks unless told not to", () => {
    const input = `a${" ".repeat(20)}b`;
    expect(texts(input, 5)).toEqual(["a    ", " b"]);
    expect(
      chunkText(input, { maxLength: 5, dropBlank: false })
        .map((c) => c.text)
        .join(""),
    ).toBe(input);
  });

  it("measures in code points or UTF-8 bytes when asked", () => {
    expect(chunkText("😀😀😀", { maxLength: 2, measure: "codePoints" }).map((c) => c.text)).toEqual(
      ["😀😀", "😀"],
    );
    const bytes = chunkText("é".repeat(10), { maxLength: 7, measure: "utf8Bytes" });
    for (const c of bytes) expect(utf8ByteLength(c.text)).toBeLessThanOrEqual(7);
    expect(bytes.map((c) => c.text).join("")).toBe("é".repeat(10));
  });

  it("leaves fences alone when codeFences is off", () => {
    const input = `\`\`\`\n${"q".repeat(40)}\n\`\`\``;
    const chunks = chunkText(input, { maxLength: 20, codeFences: false });
    expect(chunks.every((c) => c.reopen === "" && c.close === "")).toBe(true);
    expect(chunks.map((c) => c.text).join("")).toBe(input);
  });

  it("returns nothing for empty or blank text", () => {
    expect(chunkText("", { maxLength: 10 })).toEqual([]);
    expect(chunkText(" \n ", { maxLength: 10 })).toEqual([]);
  });
});
