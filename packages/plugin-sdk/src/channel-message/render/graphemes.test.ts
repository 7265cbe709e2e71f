import { describe, expect, it } from "vitest";
import { RenderLimitError } from "./errors.ts";
import { graphemeBoundaryAtOrBefore, graphemes, safeSlice, truncateText } from "./graphemes.ts";
import { codePointLength, measureLength, utf8ByteLength, utf16Length } from "./measure.ts";

describe("lengths", () => {
  it("counts UTF-16 units, code points and UTF-8 bytes", () => {
    for (const [text, u16, cp, bytes] of [
      ["abc", 3, 3, 3],
      ["é", 1, 1, 2],
      ["😀", 2, 1, 4],
      ["👨‍👩‍👧", 8, 5, 18],
      ["\uD800", 1, 1, 3],
    ] as const) {
      expect([utf16Length(text), codePointLength(text), utf8ByteLength(text)], text).toEqual([
        u16,
        cp,
        bytes,
      ]);
      expect(utf8ByteLength(text)).toBe(
        text.isWellFormed() ? new TextEncoder().encode(text).length : 3,
      );
    }
    expect(measureLength("😀", "codePoints")).toBe(1);
    expect(measureLength("ab", (t) => t.length * 10)).toBe(20);
  });
});

describe("graphemes", () => {
  it("iterates clusters with their UTF-16 index", () => {
    expect([...graphemes("a👨‍👩‍👧e\u0301")]).toEqual([
      { segment: "a", index: 0 },
      { segment: "👨‍👩‍👧", index: 1 },
      { segment: "e\u0301", index: 9 },
    ]);
  });

  it("moves an index inside a cluster back to its start", () => {
    expect(graphemeBoundaryAtOrBefore("a😀", 2)).toBe(1);
    expect(graphemeBoundaryAtOrBefore("a😀", 3)).toBe(3);
    expect(graphemeBoundaryAtOrBefore("a😀", 99)).toBe(3);
    expect(graphemeBoundaryAtOrBefore("a😀", -1)).toBe(0);
  });

  it("safeSlice never returns half a surrogate pair and adjacent slices compose", () => {
    const text = "😀😀🇩🇪x";
    expect(safeSlice(text, 0, 3)).toBe("😀");
    expect(safeSlice(text, 1, 5)).toBe("😀😀");
    expect(safeSlice(text, 0, 5) + safeSlice(text, 5)).toBe(text);
  });

  it("truncateText keeps whole clusters and counts the ellipsis", () => {
    expect(truncateText("Hello 😀 world", 9, { ellipsis: "…" })).toBe("Hello 😀…");
    expect(truncateText("Hello 😀 world", 7, { ellipsis: "…" })).toBe("Hello …");
    expect(truncateText("short", 10)).toBe("short");
    expect(truncateText("😀😀", 3, { measure: "utf8Bytes" })).toBe("");
    expect(() => truncateText("abc", 1, { ellipsis: "..." })).toThrow(RenderLimitError);
  });
});
