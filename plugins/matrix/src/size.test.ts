/**
 * The 64 KiB event limit (PLATFORMS.md §4): every event herald sends — a part of a long
 * message, an edit of one — stays within `maxContentBytes` of JSON content whatever the text is
 * made of (mentions, which add `m.mentions` entries; multi-byte text; emoji), so the homeserver
 * never answers `M_TOO_LARGE`, and the parts put back together are the text.
 */
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";

/** A smaller budget than the default 60,000 keeps the texts (and the test) small. */
const MAX = 20_000;
const bytes = (c: unknown) => Buffer.byteLength(JSON.stringify(c));

const texts: Array<[string, string]> = [
  [
    "700 distinct mentions",
    Array.from({ length: 700 }, (_, i) => `@user${String(i).padStart(5, "0")}:example.org`).join(
      " ",
    ),
  ],
  ["14,000 CJK characters (3 bytes each)", "漢字かな".repeat(3_500)],
  ["4,000 family emoji (ZWJ sequences, 25 bytes each)", "👨‍👩‍👧‍👦".repeat(4_000)],
  ["7,000 control characters (\\u0001 is 6 bytes of JSON)", "a\u0001".repeat(7_000)],
];

describe("64 KiB event limit", () => {
  for (const [name, text] of texts) {
    it(`${name}: every part and the edit of each part is within maxContentBytes and accepted`, async () => {
      const b = await openBench({ config: { maxTextLength: 20_000, maxContentBytes: MAX } });
      const { roomId, target } = b.room();
      const receipt = await b.runtime.send(b.say(target, text));
      const parts = b.fake.rooms.messagesOf(roomId);
      expect(receipt.platformMessageIds).toHaveLength(parts.length);
      for (const p of parts) expect(bytes(p.content)).toBeLessThanOrEqual(MAX);
      expect(
        parts
          .map((p) => p.content.body)
          .join("")
          .replace(/\s+/g, ""),
      ).toBe(text.replace(/\s+/g, ""));
      // An edit to the same long text: each replacement (fallback + m.new_content) fits too.
      const edited = await b.runtime.edit(receipt, b.say(target, `${text}`));
      expect(edited.platformMessageIds.length).toBeGreaterThan(0);
      const edits = b.fake.rooms.events.filter(
        (e) =>
          e.room_id === roomId &&
          (e.content["m.relates_to"] as { rel_type?: string } | undefined)?.rel_type ===
            "m.replace",
      );
      for (const e of edits) expect(bytes(e.content)).toBeLessThanOrEqual(MAX);
    });
  }
});
