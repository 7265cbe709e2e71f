// inboundMessage: the inbound ChannelMessage from an event's facts, optional fields left out.
import { describe, expect, it } from "vitest";
import { inboundMessage } from "./inbound-message.ts";

describe("inboundMessage", () => {
  it("builds id, direction, body, thread anchor and reply relation", () => {
    expect(
      inboundMessage("acme", {
        platformMessageId: "m7",
        target: { kind: "thread", id: "c1", threadId: "m1" },
        sender: { id: "u1", isBot: false },
        text: "hi",
        replyToId: "m5",
        timestamp: 1_000,
        raw: { x: 1 },
      }),
    ).toEqual({
      id: "acme:m7",
      channel: "acme",
      direction: "inbound",
      target: { kind: "thread", id: "c1", threadId: "m1" },
      sender: { id: "u1", isBot: false },
      body: { markdown: "hi" },
      platformMessageId: "m7",
      threadAnchor: { threadId: "m1" },
      relation: { kind: "reply", replyToId: "m5" },
      timestamp: 1_000,
      raw: { x: 1 },
    });
  });

  it("leaves out undefined fields; a top-level message anchors a thread under itself", () => {
    const m = inboundMessage("acme", {
      platformMessageId: "m7",
      target: { kind: "group", id: "c1", threadId: undefined },
      sender: { id: "u1" },
      text: "hi",
      replyToId: undefined,
      timestamp: undefined,
    });
    expect(m.target).toEqual({ kind: "group", id: "c1" });
    expect(m.threadAnchor).toEqual({ threadId: "m7" });
    expect(Object.keys(m)).not.toContain("relation");
    expect(Object.keys(m)).not.toContain("timestamp");
    expect(Object.keys(m)).not.toContain("raw");
    expect(
      inboundMessage("acme", {
        ...m,
        text: "",
        threadAnchorId: "t9",
        sender: { id: "u" },
        platformMessageId: "m8",
        target: m.target,
      }).threadAnchor,
    ).toEqual({ threadId: "t9" });
  });
});
