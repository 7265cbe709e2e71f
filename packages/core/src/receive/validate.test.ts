import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ReceiveValidationError } from "./errors.ts";
import { assertInboundMessage, joinIssuePath, parseInbound } from "./validate.ts";

describe("payload validation", () => {
  it("joins zod issue paths with dots, array indices included", () => {
    expect(joinIssuePath(["message", "chat", "id"])).toBe("message.chat.id");
    expect(joinIssuePath(["entities", 0, "offset"])).toBe("entities.0.offset");
    expect(joinIssuePath([])).toBe("(root)");
  });

  it("throws a ReceiveValidationError naming the first failing field and counting the rest", () => {
    const schema = z.object({
      message: z.object({ chat: z.object({ id: z.number() }), text: z.string() }),
    });
    let error: unknown;
    try {
      parseInbound(schema, { message: { chat: { id: "x" }, text: 5 } }, "telegram");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ReceiveValidationError);
    const v = error as ReceiveValidationError;
    expect(v.code).toBe("HERALD_RECEIVE_INVALID_PAYLOAD");
    expect(v.path).toBe("message.chat.id");
    expect(v.issues.map((i) => i.path)).toEqual(["message.chat.id", "message.text"]);
    expect(v.message).toMatch(/^telegram payload invalid at message\.chat\.id: .+ \(\+1 more\)$/);
  });

  it("names the root when the payload is not an object at all", () => {
    expect(() => parseInbound(z.object({}), "text", "slack")).toThrow(
      /slack payload invalid at \(root\)/,
    );
  });

  it("rejects a normalized message that breaks core's invariants, with a `normalized.` path", () => {
    const ok = {
      id: "m1",
      channel: "qa",
      direction: "inbound",
      target: { kind: "group", id: "c" },
    };
    expect(assertInboundMessage(ok, "qa")).toBe(ok);
    expect(() => assertInboundMessage({ ...ok, direction: "outbound" }, "qa")).toThrow(
      /at normalized\.direction/,
    );
    expect(() => assertInboundMessage({ ...ok, channel: "slack" }, "qa")).toThrow(
      /at normalized\.channel: expected "qa"/,
    );
    expect(() => assertInboundMessage(undefined, "qa")).toThrow(/at normalized\.\(root\)/);
  });
});
