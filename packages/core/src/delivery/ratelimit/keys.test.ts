/** Bucket keys name the platform's chat: a DM named by its person and by its channel is one chat (C44). */
import { describe, expect, it } from "vitest";
import type { MessageTarget } from "../../message/message.ts";
import type { RateLimitCall } from "../../message/rateLimit.ts";
import { defaultRateLimitRoute } from "./call.ts";
import { scopeKey } from "./keys.ts";

const call = (target: MessageTarget): RateLimitCall => ({
  channel: "slack",
  accountId: "main",
  target,
  operation: "send",
  route: defaultRateLimitRoute({ operation: "send", target }),
});

describe("rate-limit keys", () => {
  const byPerson = call({ kind: "direct", id: "UALICE", nativeChannelId: "D1" });
  const byChannel = call({ kind: "direct", id: "D1" });

  it("a DM named by the person (its channel as nativeChannelId) and by the channel shares chat, thread and default-route keys", () => {
    for (const kind of ["chat", "thread", "route"] as const) {
      expect(scopeKey(kind, byPerson)).toBe(scopeKey(kind, byChannel));
    }
  });

  it("two chats, or two accounts, never share a chat key", () => {
    expect(scopeKey("chat", call({ kind: "direct", id: "D2" }))).not.toBe(
      scopeKey("chat", byChannel),
    );
    expect(scopeKey("chat", { ...byChannel, accountId: "other" })).not.toBe(
      scopeKey("chat", byChannel),
    );
  });
});
