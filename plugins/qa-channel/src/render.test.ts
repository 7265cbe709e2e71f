import { describe, expect, it } from "vitest";
import { chunkPlainText } from "./render.ts";

describe("chunkPlainText", () => {
  it("cuts at the last space that fits, and the chunks concatenate to the input", () => {
    const text = "alpha beta gamma delta epsilon";
    const chunks = chunkPlainText(text, 12);
    expect(chunks).toEqual(["alpha beta ", "gamma delta ", "epsilon"]);
    expect(chunks.join("")).toBe(text);
  });

  it("never splits a surrogate pair or a grapheme cluster (C16)", () => {
    const chunks = chunkPlainText("😀😀😀😀😀", 3);
    expect(chunks).toEqual(["😀", "😀", "😀", "😀", "😀"]);
    const family = "👨‍👩‍👧";
    expect(chunkPlainText(`${family}${family}`, family.length)).toEqual([family, family]);
  });

  it("splits a cluster longer than the limit at code points, still well-formed", () => {
    const chunks = chunkPlainText(`e${"\u0301".repeat(10)}`, 4);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(4);
      expect(c.isWellFormed()).toBe(true);
    }
  });
});
