import { describe, expect, it } from "vitest";
import { GoogleChatRenderError } from "./errors.ts";
import { spaceNameOf, spaceOfName, threadNameProblem } from "./names.ts";

describe("resource names", () => {
  it("C35: only spaces/*/threads/* of the same space is a thread target", () => {
    expect(threadNameProblem("spaces/AAA/threads/T1", "spaces/AAA")).toBeUndefined();
    expect(threadNameProblem("spaces/AAA/messages/BBB.BBB", "spaces/AAA")).toMatch(/message name/);
    expect(threadNameProblem("T1", "spaces/AAA")).toMatch(/not a thread name/);
    expect(threadNameProblem("spaces/OTHER/threads/T1", "spaces/AAA")).toMatch(
      /not in spaces\/AAA/,
    );
    expect(threadNameProblem("spaces/AAA/threads/T1/extra", "spaces/AAA")).toMatch(
      /not a thread name/,
    );
  });

  it("space names: spaces/S as is, a bare id prefixed, anything else a typed error", () => {
    expect(spaceNameOf("spaces/AAA")).toBe("spaces/AAA");
    expect(spaceNameOf("AAA")).toBe("spaces/AAA");
    expect(() => spaceNameOf("spaces/AAA/threads/T")).toThrow(GoogleChatRenderError);
    expect(spaceOfName("spaces/AAA/messages/M")).toBe("spaces/AAA");
  });
});
