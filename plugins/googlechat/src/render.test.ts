import { describe, expect, it } from "vitest";
import { googleChatConfigSchema } from "./config.ts";
import { googleChatCapabilities } from "./index.ts";
import { createRender, type GoogleChatUnitPayload } from "./render.ts";

const config = (extra: Record<string, unknown> = {}) =>
  googleChatConfigSchema.parse({ credentials: { type: "access_token" }, ...extra });

async function render(message: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const c = config(extra);
  const batch = await createRender(c).render(
    {
      id: "m",
      channel: "googlechat",
      direction: "outbound",
      target: { kind: "group", id: "spaces/A" },
      ...message,
    },
    { idempotencyKey: "k", capabilities: googleChatCapabilities(c) },
  );
  return batch.units.map((u) => u.payload as GoogleChatUnitPayload);
}

describe("render", () => {
  it("writes markdown as Chat CommonMark text, mentions as <users/…>", async () => {
    const [unit] = await render({ body: { markdown: "**bold** and _it_ <@users/42>" } });
    expect(unit?.text).toContain("**bold**");
  });

  it("a literal body (the activity log) is escaped, so it shows as typed", async () => {
    const [unit] = await render({ body: { markdown: "tool: Grep(*_x_*) <b>", literal: true } });
    expect(unit?.text).toBe("tool: Grep(\\*\\_x\\_\\*) \\<b>");
  });

  it("chunks long text at maxTextLength measured on the serialized text, never more than 4096", async () => {
    const long = "word ".repeat(2_000).trim();
    const units = await render({ body: { markdown: long } });
    expect(units.length).toBe(3);
    for (const u of units) expect((u.text ?? "").length).toBeLessThanOrEqual(4_096);
    expect(units.map((u) => u.text).join(" ")).toBe(long);
    const small = await render({ body: { markdown: "**a** ".repeat(20) } }, { maxTextLength: 20 });
    for (const u of small) {
      expect((u.text ?? "").length).toBeLessThanOrEqual(20);
      expect((u.text ?? "").split("**").length % 2).toBe(1); // marks balanced in every chunk
    }
  });

  it("a link longer than a message (a 5,000-character URL) takes two messages, not one per character", async () => {
    const url = `https://example.com/${"y".repeat(5_000)}`;
    for (const markdown of [url, `the [signed link](${url}) expires soon`]) {
      const units = await render({ body: { markdown } });
      expect(units.length, markdown.slice(0, 40)).toBeLessThanOrEqual(3);
      for (const u of units) expect((u.text ?? "").length).toBeLessThanOrEqual(4_096);
    }
  });

  it("a card is its own last unit: cardsV2 plus the plain fallback", async () => {
    const units = await render({
      body: { markdown: "hi" },
      card: {
        title: "T",
        markdown: "**x**",
        actions: [{ kind: "link", label: "open", url: "https://e.x" }],
      },
    });
    expect(units).toHaveLength(2);
    expect(units[1]?.text).toBeUndefined();
    expect(units[1]?.fallbackText).toContain("T");
    const card = units[1]?.cardsV2?.[0]?.card;
    expect(card?.sections?.[0]?.widgets?.[0]).toEqual({ textParagraph: { text: "x" } });
    expect(card?.sections?.[0]?.widgets?.[1]?.buttonList?.buttons?.[0]?.onClick).toEqual({
      openLink: { url: "https://e.x" },
    });
  });

  it("nothing to send is a typed error", async () => {
    await expect(render({ body: { markdown: "  " } })).rejects.toThrow(/no text/);
  });
});
