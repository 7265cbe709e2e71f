import { describe, expect, it } from "vitest";
import { cardFallbackMarkdown } from "./card.ts";

describe("cardFallbackMarkdown", () => {
  it("renders title, body, fields, links and buttons as markdown", () => {
    expect(
      cardFallbackMarkdown({
        title: "Deploy",
        subtitle: "api@1.4.2",
        markdown: "Ready to roll out.",
        fields: [
          { label: "env", value: "prod" },
          { label: "owner", value: "ops" },
        ],
        actions: [
          { kind: "link", label: "Diff", url: "https://example.com/diff" },
          { kind: "button", label: "Approve", id: "approve" },
          { kind: "button", label: "Reject", id: "reject", style: "danger" },
        ],
      }),
    ).toBe(
      "**Deploy**\napi@1.4.2\n\nReady to roll out.\n\n**env:** prod\n**owner:** ops\n\n" +
        "[Diff](https://example.com/diff)\n\n- Approve\n- Reject",
    );
  });

  it("uses the card's own fallback when it has one", () => {
    expect(cardFallbackMarkdown({ title: "t", fallback: "plain words" })).toBe("plain words");
  });
});
