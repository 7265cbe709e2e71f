import { describe, expect, it } from "vitest";
import { compact, type IntentJsonColumns, patchColumns, registryEntries } from "./storeHelpers.ts";

describe("compact", () => {
  it("returns the object itself when no key is undefined", () => {
    const row = { a: 1, b: null, c: "" };
    expect(compact(row)).toBe(row);
  });

  it("returns a copy without the undefined keys and leaves the input as it was", () => {
    const row = { a: 1, b: undefined, c: null, d: undefined };
    const out = compact(row);
    expect(out).toEqual({ a: 1, c: null });
    expect(Object.keys(out)).toEqual(["a", "c"]);
    expect(Object.keys(row)).toEqual(["a", "b", "c", "d"]);
  });
});

describe("patchColumns", () => {
  // Column names of a store that names its JSON columns after the fields.
  const json = Object.fromEntries(
    ["failure", "receipt", "partialReceipt", "liveState", "batch", "firstDispatchAt"].map((f) => [
      f,
      f,
    ]),
  ) as unknown as IntentJsonColumns;

  it("a cleared next attempt makes the intent due since its creation; release clears the lease", () => {
    expect(patchColumns({ nextAttemptAt: null, lease: "release" }, { createdAt: 7 }, json)).toEqual(
      { next_attempt_at: null, due_at: 7, lease_owner: null, lease_expires_at: null },
    );
  });
});

describe("registryEntries", () => {
  it("lists each platform id once, with its part index (-1 when listed without a part)", () => {
    const receipt = {
      sentAt: 1,
      primaryPlatformMessageId: "p1",
      platformMessageIds: ["p1", "p2", "loose"],
      parts: [
        { platformMessageId: "p1", kind: "text" as const, index: 0 },
        { platformMessageId: "p2", kind: "text" as const, index: 1 },
      ],
    };
    expect(registryEntries({ receipt })).toEqual([
      { platformMessageId: "p1", partIndex: 0 },
      { platformMessageId: "p2", partIndex: 1 },
      { platformMessageId: "loose", partIndex: -1 },
    ]);
  });
});
