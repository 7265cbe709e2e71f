import type { ChannelMessage } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { createRender, type SlackUnitPayload } from "./render.ts";

const capabilities = {} as never;

function render(attachments: ChannelMessage["attachments"], maxTextLength = 60) {
  const message: ChannelMessage = {
    id: "m1",
    channel: "slack",
    direction: "outbound",
    target: { kind: "group", id: "C00000001" },
    body: { markdown: "the text" },
    ...(attachments ? { attachments } : {}),
  };
  const batch = createRender({ maxTextLength }).render(message, {
    idempotencyKey: "k",
    capabilities,
  }) as { units: Array<{ index: number; payload: SlackUnitPayload }> };
  return batch.units.map((u) => u.payload);
}

describe("render: attachments", () => {
  const caption = Array.from({ length: 12 }, (_, i) => `caption word${i}`).join(" ");

  for (const attachment of [
    { kind: "image" as const, url: "https://example.com/cat.png" },
    { kind: "file" as const, path: "/tmp/report.pdf" },
  ]) {
    it(`${attachment.kind}: a caption longer than one message is never cut off (the rest follows as text)`, () => {
      const payloads = render([{ ...attachment, caption }]);
      const [media, ...texts] = payloads;
      expect(media?.type).toBe(attachment.kind);
      const shown = [
        (media as { comment?: string }).comment,
        ...texts.map((t) => (t as { text: string }).text),
      ];
      expect(shown.at(-1)).toBe("the text");
      expect(shown.slice(0, -1).join(" ")).toBe(caption);
    });
  }

  it("an image's alt_text stays within Slack's 2,000 characters, never splitting a surrogate pair", () => {
    const [image] = render(
      [{ kind: "image", url: "https://example.com/cat.png", caption: "😀".repeat(1_500) }],
      40_000,
    );
    const alt = (image as { altText: string }).altText;
    expect(alt.length).toBeLessThanOrEqual(2_000);
    expect(alt.endsWith("…")).toBe(true);
    expect(alt.isWellFormed()).toBe(true);
  });
});
