import { describe, expect, it } from "vitest";
import { cardFallbackMarkdown, withCardFallback } from "./card.ts";

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

describe("withCardFallback", () => {
  it("appends the card's fallback to the body and removes the card", () => {
    const message = {
      body: { markdown: "Build finished.", plain: "Build finished." },
      card: { title: "Deploy", actions: [{ kind: "button" as const, label: "Ship", id: "ship" }] },
    };
    expect(withCardFallback(message)).toEqual({
      body: { markdown: "Build finished.\n\n**Deploy**\n\n- Ship" },
    });
    expect(withCardFallback({ card: { fallback: "only the card" } })).toEqual({
      body: { markdown: "only the card" },
    });
    const plain = { body: { markdown: "no card" } };
    expect(withCardFallback(plain)).toBe(plain);
  });
});
