import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { composeRef, MalformedRefError, parseRef } from "./ref.ts";

describe("composeRef / parseRef", () => {
  it("joins a Slack channel and ts readably, and a Matrix room and event with their colons escaped", () => {
    expect(composeRef("C024BE91L", "1700000000.000100")).toBe("C024BE91L:1700000000.000100");
    const matrix = composeRef("!abc:example.org:8448", "$ev:example.org");
    expect(matrix).toBe("!abc%3Aexample.org%3A8448:$ev%3Aexample.org");
    expect(parseRef(matrix)).toEqual({ container: "!abc:example.org:8448", id: "$ev:example.org" });
    expect(parseRef("C024BE91L:1700000000.000100")).toEqual({
      container: "C024BE91L",
      id: "1700000000.000100",
    });
  });

  it("round-trips any two non-empty strings, percent signs and colons included", () => {
    const part = fc.string({
      minLength: 1,
      unit: fc.constantFrom("a", ":", "%", "3", "A", "é", "😀", "$", "!"),
    });
    fc.assert(
      fc.property(part, part, (container, id) => {
        expect(parseRef(composeRef(container, id))).toEqual({ container, id });
      }),
      { numRuns: 500 },
    );
  });

  it("reads a bare id in the fallback container", () => {
    expect(parseRef("42", { fallbackContainer: "-100123" })).toEqual({
      container: "-100123",
      id: "42",
    });
  });

  it.each([
    ["", undefined, "it is empty"],
    ["42", undefined, "no container"],
    ["!abc:example.org:$ev", undefined, '2 unescaped ":"'],
    [":1700000000.000100", undefined, "the container is empty"],
    ["C024BE91L:", undefined, "the id is empty"],
    ["C1:17%", undefined, 'bad escape "%"'],
    ["C1%zz:17", undefined, 'bad escape "%zz"'],
  ])("rejects %j with a typed error naming the reason", (ref, fallbackContainer, reason) => {
    const options = {
      label: "Slack message ref",
      ...(fallbackContainer ? { fallbackContainer } : {}),
    };
    let error: unknown;
    try {
      parseRef(ref, options);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MalformedRefError);
    expect((error as MalformedRefError).code).toBe("HERALD_MALFORMED_REF");
    expect((error as MalformedRefError).ref).toBe(ref);
    expect((error as Error).message).toContain("Slack message ref");
    expect((error as Error).message).toContain(reason);
  });

  it("refuses to compose an empty half", () => {
    expect(() => composeRef("", "1")).toThrow(/the container is empty/);
    expect(() => composeRef("C1", "")).toThrow(MalformedRefError);
  });
});
