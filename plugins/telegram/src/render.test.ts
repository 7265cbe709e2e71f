import type { ChannelMessage } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { telegramConfigSchema } from "./config.ts";
import { createRender, type TelegramUnitPayload, withTelegramOptions } from "./render.ts";

const config = telegramConfigSchema.parse({});
const message = (markdown: string, extra: Partial<ChannelMessage> = {}): ChannelMessage => ({
  id: "m1",
  channel: "telegram",
  direction: "outbound",
  target: { kind: "direct", id: "1" },
  body: { markdown },
  ...extra,
});
const render = (m: ChannelMessage, limits = config) =>
  createRender(limits).render(m, { idempotencyKey: "k", capabilities: { text: {} } }) as {
    units: Array<{ index: number; kind: string; payload: TelegramUnitPayload }>;
  };

describe("telegram rendering", () => {
  it("renders markdown as plain text + entities, with links as text_link (no parse_mode)", () => {
    const [unit] = render(message("**Hi** _there_, see [docs](https://example.com) and `x`")).units;
    expect(unit?.payload).toEqual({
      type: "text",
      text: "Hi there, see docs and x",
      entities: [
        { type: "bold", offset: 0, length: 2 },
        { type: "italic", offset: 3, length: 5 },
        { type: "text_link", offset: 14, length: 4, url: "https://example.com" },
        { type: "code", offset: 23, length: 1 },
      ],
    });
    expect(JSON.stringify(unit?.payload)).not.toContain("parse_mode");
  });

  it("shows text that MarkdownV2 would reject exactly as written, without escapes (C18)", () => {
    const [unit] = render(message("Sure! Step 1 - done.")).units;
    expect(unit?.payload).toMatchObject({ text: "Sure! Step 1 - done.", entities: [] });
  });

  it("keeps every chunk well-formed UTF-16 at a 3-unit limit (C16)", () => {
    const { units } = render(message("😀😀😀😀😀"), { ...config, maxTextLength: 3 });
    const texts = units.map((u) => (u.payload as { text: string }).text);
    expect(texts.join("")).toBe("😀😀😀😀😀");
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(3);
      expect(t.isWellFormed()).toBe(true);
      expect(t).not.toContain("\uFFFD");
    }
  });

  it("chunks at 4096 UTF-16 units and carries a bold run across the cut with rebased offsets", () => {
    const long = `**${"a".repeat(5000)}**`;
    const { units } = render(message(long));
    expect(units).toHaveLength(2);
    const [a, b] = units.map((u) => u.payload as Extract<TelegramUnitPayload, { type: "text" }>);
    expect(a?.text.length).toBe(4096);
    expect(a?.entities).toEqual([{ type: "bold", offset: 0, length: 4096 }]);
    expect(b?.entities).toEqual([{ type: "bold", offset: 0, length: 904 }]);
  });

  it("captions media with the body; a caption over 1024 units follows as text (C19)", () => {
    const caption = "word ".repeat(300).trim(); // 1499 units
    const { units } = render(
      message(caption, { attachments: [{ kind: "image", platformFileId: "AgAD-photo" }] }),
    );
    expect(units.map((u) => u.kind)).toEqual(["media", "text"]);
    expect(units[0]?.payload).toEqual({
      type: "media",
      method: "sendPhoto",
      source: { fileId: "AgAD-photo" },
    });
    expect((units[1]?.payload as { text: string } | undefined)?.text).toBe(caption);
  });

  it("splits 1023 ASCII + one emoji (1025 units) without cutting the emoji, in split mode (C19 edge)", () => {
    const text = `${"x".repeat(1023)}😀`;
    const { units } = render(
      message(text, { attachments: [{ kind: "image", url: "https://example.com/a.png" }] }),
      { ...config, captionOverflow: "split" },
    );
    const media = units[0]?.payload as Extract<TelegramUnitPayload, { type: "media" }>;
    expect(media.caption).toBe("x".repeat(1023));
    expect((units[1]?.payload as { text: string } | undefined)?.text).toBe("😀");
  });

  it("sends a voice note as a voice unit with its caption", () => {
    const { units } = render(
      message("", { attachments: [{ kind: "voice", path: "/tmp/a.ogg", caption: "listen" }] }),
    );
    expect(units).toEqual([
      {
        index: 0,
        kind: "voice",
        required: true,
        payload: {
          type: "media",
          method: "sendVoice",
          source: { path: "/tmp/a.ogg" },
          caption: "listen",
          captionEntities: [],
        },
      },
    ]);
  });

  it("puts the inline keyboard on the last unit only", () => {
    const keyboard = [[{ text: "Yes", callback_data: "y" }]];
    const { units } = render(
      withTelegramOptions(
        message("a ".repeat(3000), { attachments: [{ kind: "image", platformFileId: "p" }] }),
        { inlineKeyboard: keyboard },
      ),
    );
    expect(units.length).toBeGreaterThan(2);
    expect(units.map((u) => u.payload.replyMarkup !== undefined)).toEqual(
      units.map((_, i) => i === units.length - 1),
    );
    expect(units.at(-1)?.payload.replyMarkup).toEqual({ inline_keyboard: keyboard });
  });

  it("reads the keyboard from channelOptions.telegram (never raw), and names a malformed one", () => {
    const keyed = withTelegramOptions(message("pick"), {
      inlineKeyboard: [[{ text: "A", callback_data: "a" }]],
    });
    expect(keyed.raw).toBeUndefined();
    expect(keyed.channelOptions).toEqual({
      telegram: { inlineKeyboard: [[{ text: "A", callback_data: "a" }]] },
    });
    const bad = message("pick", {
      channelOptions: { telegram: { inlineKeyboard: [[{ text: "" }]] } },
    });
    expect(() => render(bad)).toThrow("channelOptions.telegram.inlineKeyboard.0.0.text");
    const others = message("pick", { channelOptions: { slack: { unfurl_links: false } } });
    expect(render(others).units[0]?.payload.replyMarkup).toBeUndefined();
  });

  it("refuses a message with nothing to send", () => {
    expect(() => render(message("   "))).toThrow(/no text and no attachments/);
    expect(() => render(message("x", { attachments: [{ kind: "image" }] }))).toThrow(
      /needs platformFileId, url or path/,
    );
  });

  it("shows a literal body (the activity log) as typed, with no entities", () => {
    const text =
      "• 12:04:04  tool: Grep(*_x_*) — <b>bold</b> **not** [x](https://e.x)\nnext `line`";
    const [unit] = render(message(text, { body: { markdown: text, literal: true } })).units;
    expect(unit?.payload).toEqual({ type: "text", text, entities: [] });
  });

  it("does not cut a link that fits into the next chunk", () => {
    const md = `${"a".repeat(40)} [the docs page](https://e.x/docs) tail`;
    const units = render(message(md), { ...config, maxTextLength: 50 }).units;
    const links = units.flatMap((u) =>
      u.payload.type === "text" ? u.payload.entities.filter((e) => e.type === "text_link") : [],
    );
    expect(links).toEqual([{ type: "text_link", offset: 0, length: 13, url: "https://e.x/docs" }]);
  });
});
