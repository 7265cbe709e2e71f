import { describe, expect, it } from "vitest";
import type { TextEntity } from "./entity-types.ts";
import { parseMarkdown } from "./markdown.ts";
import { renderTextWithEntities } from "./render-entities.ts";

const render = renderTextWithEntities;
const covered = (r: { text: string; entities: TextEntity[] }, type: TextEntity["type"]) =>
  r.entities.filter((e) => e.type === type).map((e) => r.text.slice(e.offset, e.offset + e.length));

describe("renderTextWithEntities", () => {
  it("C18: 'Sure! Step 1 - done.' comes out exactly, no backslashes, no entities", () => {
    expect(render("Sure! Step 1 - done.")).toEqual({ text: "Sure! Step 1 - done.", entities: [] });
  });

  it("C18: MarkdownV2-special characters stay plain text", () => {
    const text = "Price (approx.): 5 + 3 = 8! #1 item | a.b {x} ~5 min > 3 min";
    expect(render(text).text).toBe(text);
    expect(render(text).text).not.toContain("\\");
  });

  it("consumes markdown escapes instead of adding any", () => {
    expect(render("1\\. not a list, \\*not italic\\*").text).toBe("1. not a list, *not italic*");
  });

  it("renders bold, italic, strikethrough and inline code as entities over plain text", () => {
    const r = render("**bold** *it* ~~gone~~ `x<y`");
    expect(r.text).toBe("bold it gone x<y");
    expect(r.entities).toEqual([
      { type: "bold", offset: 0, length: 4 },
      { type: "italic", offset: 5, length: 2 },
      { type: "strikethrough", offset: 8, length: 4 },
      { type: "code", offset: 13, length: 3 },
    ]);
  });

  it("renders a fenced block as pre with its language", () => {
    const r = render("Look:\n\n```python\nprint('hi')\n```");
    expect(r.text).toBe("Look:\n\nprint('hi')");
    expect(r.entities).toEqual([{ type: "pre", offset: 7, length: 11, language: "python" }]);
  });

  it("renders links with absolute URLs as link entities and relative ones as text", () => {
    const r = render("[docs](https://example.com/a_b) and [here](./local) and https://x.org");
    expect(r.text).toBe("docs and here and https://x.org");
    expect(r.entities).toEqual([
      { type: "link", offset: 0, length: 4, url: "https://example.com/a_b" },
      { type: "link", offset: 18, length: 13, url: "https://x.org" },
    ]);
  });

  it("resolves reference links and shows images as linked alt text", () => {
    const r = render("[site][s] ![logo](https://img.example/l.png)\n\n[s]: https://example.com");
    expect(r.text).toBe("site logo");
    expect(r.entities.map((e) => (e.type === "link" ? e.url : e.type))).toEqual([
      "https://example.com",
      "https://img.example/l.png",
    ]);
  });

  it("renders a blockquote as one entity, never nested", () => {
    const r = render("> outer\n>\n> > inner");
    expect(r.text).toBe("outer\n\ninner");
    expect(r.entities).toEqual([{ type: "blockquote", offset: 0, length: 12 }]);
  });

  it("renders lists as text with bullets, numbers, task boxes and indented nesting", () => {
    const r = render("- one\n- two\n  - nested\n\n3. third\n4. fourth\n\n- [ ] todo\n- [x] done");
    expect(r.text).toBe("• one\n• two\n  • nested\n\n3. third\n4. fourth\n\n☐ todo\n☑ done");
  });

  it("renders headings bold and tables as rows with a bold header", () => {
    const r = render("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |");
    expect(r.text).toBe("Title\n\na | b\n1 | 2");
    expect(covered(r, "bold")).toEqual(["Title", "a", "b"]);
  });

  it("nests entities outer first and never nests one type inside itself", () => {
    const r = render("[**bold link**](https://e.x) ***both***");
    expect(r.entities.map((e) => e.type)).toEqual(["link", "bold", "italic", "bold"]);
    expect(covered(r, "bold")).toEqual(["bold link", "both"]);
  });

  it("keeps raw HTML as text", () => {
    expect(render("a <b>tag</b>").text).toBe("a <b>tag</b>");
  });

  it("measures offsets in UTF-16 units", () => {
    const r = render("😀 **x**");
    expect(r.entities).toEqual([{ type: "bold", offset: 3, length: 1 }]);
  });

  it("accepts a parsed mdast tree", () => {
    expect(render(parseMarkdown("_hi_"))).toEqual({
      text: "hi",
      entities: [{ type: "italic", offset: 0, length: 2 }],
    });
  });
});
