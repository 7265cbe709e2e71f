// The send-side steps plugins share: which part quotes a reply, plain-text batches, and the
// per-unit reconciler (sent with the parts found, not_sent with none, a failed lookup throws).
import type { MessageRelation, RenderedMessageUnit } from "@herald/core";
import { describe, expect, it } from "vitest";
import { plainTextBatch, quotedReplyId, reconcileEachUnit } from "./send-steps.ts";

const reply = (placement?: "quote" | "inline" | "thread" | "broadcast"): MessageRelation => ({
  kind: "reply",
  inboundMessageId: "in-1",
  replyToId: "m-41",
  ...(placement ? { placement } : {}),
});
const ctxOf = (relation?: MessageRelation) => ({
  message: {
    id: "x",
    channel: "acme",
    direction: "outbound" as const,
    target: { kind: "group" as const, id: "c1" },
    ...(relation ? { relation } : {}),
  },
});

describe("quotedReplyId", () => {
  it("quotes the replied-to message on part 0 under placement quote, the default", () => {
    expect(quotedReplyId(ctxOf(reply()), { index: 0 })).toBe("m-41");
    expect(quotedReplyId(ctxOf(reply("quote")), { index: 0 })).toBe("m-41");
  });

  it("quotes nothing on later parts, for other placements, or without a reply", () => {
    expect(quotedReplyId(ctxOf(reply()), { index: 1 })).toBeUndefined();
    for (const placement of ["inline", "thread", "broadcast"] as const)
      expect(quotedReplyId(ctxOf(reply(placement)), { index: 0 })).toBeUndefined();
    expect(quotedReplyId(ctxOf(), { index: 0 })).toBeUndefined();
  });
});

describe("plainTextBatch", () => {
  it("cuts the markdown into required text units within maxLength, keyed by the intent", () => {
    const batch = plainTextBatch(
      { body: { markdown: "alpha beta gamma delta" } },
      { idempotencyKey: "k1" },
      { maxLength: 11 },
    );
    expect(batch.idempotencyKey).toBe("k1");
    expect(batch.atomicity).toBe("all_or_retry_remaining");
    expect(batch.units.map((u) => [u.index, u.kind, u.required])).toEqual(
      batch.units.map((_, i) => [i, "text", true]),
    );
    expect(batch.units.length).toBeGreaterThan(1);
    expect(batch.units.every((u) => String(u.payload).length <= 11)).toBe(true);
    expect(
      batch.units
        .map((u) => String(u.payload))
        .join(" ")
        .replace(/\s+/g, " ")
        .trim(),
    ).toBe("alpha beta gamma delta");
  });

  it("renders a message without a body as one empty text unit (core refuses it, not the renderer)", () => {
    expect(plainTextBatch({}, { idempotencyKey: "k" }, { maxLength: 10 }).units.length).toBe(
      plainTextBatch({ body: { markdown: "" } }, { idempotencyKey: "k" }, { maxLength: 10 }).units
        .length,
    );
  });
});

describe("reconcileEachUnit", () => {
  const units: RenderedMessageUnit[] = [0, 1, 2].map((index) => ({
    index,
    kind: "text",
    payload: `p${index}`,
    required: true,
  }));

  it("answers sent with the parts the platform has, in unit order", async () => {
    const stored = new Map([
      [0, "m0"],
      [2, "m2"],
    ]);
    expect(
      await reconcileEachUnit(units, async (u) => {
        const id = stored.get(u.index);
        return id ? { platformMessageId: id, kind: u.kind, index: u.index } : undefined;
      }),
    ).toEqual({
      status: "sent",
      parts: [
        { platformMessageId: "m0", kind: "text", index: 0 },
        { platformMessageId: "m2", kind: "text", index: 2 },
      ],
    });
  });

  it("answers not_sent when no unit is found, and throws when a lookup fails", async () => {
    expect(await reconcileEachUnit(units, async () => undefined)).toEqual({ status: "not_sent" });
    await expect(
      reconcileEachUnit(units, async (u) => {
        if (u.index === 1) throw new Error("lookup failed: 503");
        return undefined;
      }),
    ).rejects.toThrow(/503/);
  });
});
