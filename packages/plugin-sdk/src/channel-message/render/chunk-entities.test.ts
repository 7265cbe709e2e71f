import { describe, expect, it } from "vitest";
import { chunkTextWithEntities, sliceTextWithEntities } from "./chunk-entities.ts";
import type { TextEntity, TextEntityRange } from "./entity-types.ts";
import { EntityRangeError } from "./errors.ts";

describe("chunkTextWithEntities", () => {
  it("C16: five emoji at 3 UTF-16 units, entity split across every chunk, all well-formed", () => {
    const chunks = chunkTextWithEntities(
      { text: "😀😀😀😀😀", entities: [{ type: "bold", offset: 0, length: 10 }] },
      { maxLength: 3 },
    );
    expect(chunks.map((c) => c.text)).toEqual(["😀", "😀", "😀", "😀", "😀"]);
    for (const c of chunks) {
      expect(c.text.isWellFormed()).toBe(true);
      expect(c.text).not.toContain("\uFFFD");
      expect(c.entities).toEqual([{ type: "bold", offset: 0, length: 2 }]);
    }
  });

  it("continues a pre block across the boundary with its language", () => {
    const code = "line one\nline two\nline three\n";
    const text = `Intro.\n\n${code}`;
    const pre: TextEntity = { type: "pre", offset: 8, length: code.length, language: "ts" };
    const chunks = chunkTextWithEntities({ text, entities: [pre] }, { maxLength: 20 });
    expect(chunks.map((c) => c.text).join("")).toBe(text);
    const pres = chunks.flatMap((c) => c.entities);
    expect(pres.every((e) => e.type === "pre" && e.language === "ts")).toBe(true);
    expect(pres.reduce((n, e) => n + e.length, 0)).toBe(code.length);
  });

  it("re-bases a link cut by the boundary into both chunks with its url", () => {
    const text = "see the documentation page";
    const link = { type: "link" as const, offset: 4, length: 22, url: "https://example.com" };
    const chunks = chunkTextWithEntities({ text, entities: [link] }, { maxLength: 18 });
    expect(chunks.map((c) => c.text)).toEqual(["see the ", "documentation page"]);
    expect(chunks[0]?.entities).toEqual([{ ...link, offset: 4, length: 4 }]);
    expect(chunks[1]?.entities).toEqual([{ ...link, offset: 0, length: 18 }]);
  });

  it("does not split a keep-whole entity when another boundary fits", () => {
    type Tg = TextEntityRange & { type: string };
    const text = "abc@abcdefgxyz";
    const mention: Tg = { type: "mention", offset: 3, length: 8 };
    const cut = (keepWhole?: (e: Tg) => boolean) =>
      chunkTextWithEntities<Tg>(
        { text, entities: [mention] },
        keepWhole ? { maxLength: 8, keepWhole } : { maxLength: 8 },
      );
    expect(cut().map((c) => c.text)).toEqual(["abc@abcd", "efgxyz"]);
    const whole = cut((e) => e.type === "mention");
    expect(whole.map((c) => c.text)).toEqual(["abc", "@abcdefg", "xyz"]);
    expect(whole[1]?.entities).toEqual([{ ...mention, offset: 0 }]);
  });

  it("carries extra platform fields through unchanged", () => {
    const e = { type: "custom_emoji", offset: 0, length: 2, custom_emoji_id: "42" };
    const [chunk] = chunkTextWithEntities({ text: "😀 hi", entities: [e] }, { maxLength: 10 });
    expect(chunk?.entities).toEqual([e]);
  });

  it("throws EntityRangeError for an entity outside the text", () => {
    const bad = { text: "abc", entities: [{ offset: 2, length: 5 }] };
    expect(() => chunkTextWithEntities(bad, { maxLength: 10 })).toThrow(EntityRangeError);
    expect(() =>
      chunkTextWithEntities(
        { text: "abc", entities: [{ offset: -1, length: 1 }] },
        { maxLength: 10 },
      ),
    ).toThrow(/entities\[0\]/);
  });
});

describe("sliceTextWithEntities", () => {
  it("clips and re-bases, dropping entities outside the slice", () => {
    const input = {
      text: "abcdef",
      entities: [
        { offset: 0, length: 2 },
        { offset: 1, length: 4 },
        { offset: 5, length: 1 },
      ],
    };
    expect(sliceTextWithEntities(input, 2, 5)).toEqual({
      text: "cde",
      entities: [{ offset: 0, length: 3 }],
    });
  });
});
