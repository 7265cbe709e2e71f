import { describe, expect, it } from "vitest";
import { deliveredUnitIndexes, mergeReceipts, receiptFromParts } from "./receipt.ts";

describe("receipts", () => {
  it("keeps every platform id in unit order with the first as primary", () => {
    const r = receiptFromParts(
      [
        { platformMessageId: "m3", kind: "text", index: 2 },
        { platformMessageId: "m1", kind: "media", index: 0, threadId: "42" },
        { platformMessageId: "m2", kind: "text", index: 1 },
      ],
      { sentAt: 5 },
    );
    expect(r).toMatchObject({
      primaryPlatformMessageId: "m1",
      platformMessageIds: ["m1", "m2", "m3"],
      threadId: "42",
      sentAt: 5,
    });
  });

  it("merges a partial receipt saved before a crash with the parts sent after it", () => {
    const before = receiptFromParts([{ platformMessageId: "a", kind: "text", index: 0 }], {
      sentAt: 1,
    });
    const after = receiptFromParts(
      [
        { platformMessageId: "b", kind: "text", index: 1 },
        { platformMessageId: "c", kind: "text", index: 2 },
      ],
      { sentAt: 9 },
    );
    const merged = mergeReceipts(before, after);
    expect(merged.platformMessageIds).toEqual(["a", "b", "c"]);
    expect(merged.primaryPlatformMessageId).toBe("a");
    expect(merged.sentAt).toBe(9);
    expect([...deliveredUnitIndexes(merged)]).toEqual([0, 1, 2]);
  });

  it("lets a re-sent unit replace its earlier part and keeps ids listed without parts", () => {
    const prev = {
      platformMessageIds: ["legacy", "x"],
      parts: [{ platformMessageId: "x", kind: "text" as const, index: 0 }],
      sentAt: 1,
    };
    const next = receiptFromParts([{ platformMessageId: "y", kind: "text", index: 0 }], {
      sentAt: 2,
    });
    const merged = mergeReceipts(prev, next);
    expect(merged.parts.map((p) => p.platformMessageId)).toEqual(["y"]);
    expect(merged.platformMessageIds).toEqual(["y", "legacy", "x"]);
  });

  it("handles an empty batch and an undefined previous receipt", () => {
    expect(receiptFromParts([], { sentAt: 3 })).toEqual({
      platformMessageIds: [],
      parts: [],
      sentAt: 3,
    });
    const only = receiptFromParts([{ platformMessageId: "z", kind: "voice", index: 0 }], {
      sentAt: 4,
    });
    expect(mergeReceipts(undefined, only)).toEqual(only);
    expect(deliveredUnitIndexes(undefined).size).toBe(0);
  });
});
