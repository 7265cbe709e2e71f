import { describe, expect, it } from "vitest";
import { splitCaption } from "./caption.ts";
import { chunkTextWithEntities } from "./chunk-entities.ts";
import { RenderLimitError } from "./errors.ts";

const plain = (text: string) => ({ text, entities: [] });

describe("splitCaption", () => {
  it("uses a text that fits as the caption", () => {
    expect(splitCaption(plain("a photo"), { maxLength: 1024 })).toEqual({
      caption: plain("a photo"),
      rest: undefined,
    });
  });

  it("C19 edge: 1023 ASCII + one emoji (1025 UTF-16 units) does not fit 1024 and is never cut in the emoji", () => {
    const text = `${"x".repeat(1023)}😀`;
    expect(splitCaption(plain(text), { maxLength: 1024 })).toEqual({
      caption: undefined,
      rest: plain(text),
    });
    const split = splitCaption(plain(text), { maxLength: 1024, overflow: "split" });
    expect(split.caption?.text).toBe("x".repeat(1023));
    expect(split.rest?.text).toBe("😀");
    expect(split.caption?.text.isWellFormed() && split.rest?.text.isWellFormed()).toBe(true);
  });

  it("C19: a 1500-character caption goes after the media, in chunks at the text limit", () => {
    const text = "word ".repeat(300).trimEnd();
    const { caption, rest } = splitCaption(
      { text, entities: [{ type: "bold", offset: 0, length: 4 }] },
      { maxLength: 1024 },
    );
    expect(caption).toBeUndefined();
    const follow = chunkTextWithEntities(rest ?? plain(""), { maxLength: 4096 });
    expect(follow.map((c) => c.text)).toEqual([text]);
    expect(follow[0]?.entities).toEqual([{ type: "bold", offset: 0, length: 4 }]);
  });

  it("splits at a paragraph break and re-bases the entities of the rest", () => {
    const first = "First paragraph.";
    const text = `${first}\n\n${"y".repeat(30)}`;
    const { caption, rest } = splitCaption(
      { text, entities: [{ type: "italic", offset: 0, length: text.length }] },
      { maxLength: 40, overflow: "split" },
    );
    expect(caption?.text).toBe(`${first}\n\n`);
    expect(rest?.text).toBe("y".repeat(30));
    expect(rest?.entities).toEqual([{ type: "italic", offset: 0, length: 30 }]);
  });

  it("sends no caption and no rest for blank text", () => {
    expect(splitCaption(plain("  \n"), { maxLength: 1024 })).toEqual({
      caption: undefined,
      rest: undefined,
    });
  });

  it("throws RenderLimitError for a limit that is not a positive integer", () => {
    expect(() => splitCaption(plain("a"), { maxLength: 0 })).toThrow(RenderLimitError);
  });
});
