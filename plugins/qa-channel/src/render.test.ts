import type { ChannelMessage } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { QaRenderError } from "./errors.ts";
import { createRender, type QaUnitPayload } from "./render.ts";

const message = (extra: Partial<ChannelMessage>): ChannelMessage => ({
  id: "m1",
  channel: "qa",
  direction: "outbound",
  target: { kind: "group", id: "room" },
  ...extra,
});

async function texts(maxLength: number, m: ChannelMessage): Promise<string[]> {
  const batch = await createRender(maxLength).render(m, {
    idempotencyKey: "k",
    capabilities: { text: { maxLength, chunking: true } },
  });
  return batch.units.map((u) => (u.payload as QaUnitPayload).text);
}

describe("qa render", () => {
  it("splits a long body at word boundaries into units within the limit", async () => {
    const parts = await texts(
      12,
      message({ body: { markdown: "alpha beta gamma delta epsilon" } }),
    );
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(12);
    // Spaces at a cut are left out: chat clients trim them anyway.
    expect(parts.join(" ")).toBe("alpha beta gamma delta epsilon");
  });

  it("never splits a surrogate pair (C16)", async () => {
    const parts = await texts(3, message({ body: { markdown: "😀😀😀😀😀" } }));
    expect(parts).toEqual(["😀", "😀", "😀", "😀", "😀"]);
  });

  it("closes a fenced code block at a cut and re-opens it with its language (C17)", async () => {
    const code = Array.from({ length: 12 }, (_, i) => `const v${i} = ${i};`).join("\n");
    const parts = await texts(80, message({ body: { markdown: `\`\`\`ts\n${code}\n\`\`\`` } }));
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(80);
      expect(p.startsWith("```ts\n")).toBe(true);
      expect(p.trimEnd().endsWith("```")).toBe(true);
    }
  });

  it("shows attachments as text lines before the body", async () => {
    const parts = await texts(
      100,
      message({
        body: { markdown: "see above" },
        attachments: [{ kind: "image", url: "https://example.test/cat.png", caption: "a cat" }],
      }),
    );
    expect(parts).toEqual(["[image: https://example.test/cat.png] a cat", "see above"]);
  });

  it("refuses a message with nothing to send", async () => {
    await expect(texts(100, message({ body: { markdown: "   " } }))).rejects.toBeInstanceOf(
      QaRenderError,
    );
  });

  it("never cuts a mark or a link of a long markdown body into literal markup", async () => {
    const md = "**one two three four five six seven** and [the docs page](https://e.x/docs)";
    // The old string chunker sent "seven** and [the docs " and "page](https://e.x/docs)" here.
    const parts = await texts(36, message({ body: { markdown: md } }));
    expect(parts).toEqual([
      "**one two three four five six**",
      "**seven** and",
      "[the docs page](https://e.x/docs)",
    ]);
  });

  it("shows a literal body (the activity log) as typed", async () => {
    const text = "tool: Grep(*_x_*) — <b>bold</b> **not**";
    expect(await texts(100, message({ body: { markdown: text, literal: true } }))).toEqual([text]);
  });
});
