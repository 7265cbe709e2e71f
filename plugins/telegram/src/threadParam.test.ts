/**
 * The `message_thread_id` of a send at its boundaries ([H22] item 3: special topic ids): the
 * General topic (id 1) is sent without one — from the target or from a reply relation — the
 * next id (2) is a real topic, the target's thread wins over the relation's, and an id that is
 * no integer is a typed render error, never a send into the wrong place.
 */
import { describe, expect, it } from "vitest";
import { TelegramRenderError } from "./errors.ts";
import { GENERAL_TOPIC_ID, threadParamOf } from "./send.ts";

const ctx = (target: Record<string, unknown>, relation?: Record<string, unknown>) =>
  ({
    message: {
      target: { kind: "thread", id: "-1001", ...target },
      ...(relation ? { relation: { kind: "reply", replyToId: "-1001:5", ...relation } } : {}),
    },
  }) as unknown as Parameters<typeof threadParamOf>[0];

describe("threadParamOf", () => {
  it("General (1) has no message_thread_id, from the target or the reply relation; topic 2 has", () => {
    expect(GENERAL_TOPIC_ID).toBe(1);
    expect(threadParamOf(ctx({ threadId: "1" }))).toBeUndefined();
    expect(threadParamOf(ctx({ kind: "group" }, { threadId: "1" }))).toBeUndefined();
    expect(threadParamOf(ctx({ threadId: "2" }))).toBe(2);
    expect(threadParamOf(ctx({ kind: "group" }, { threadId: "2" }))).toBe(2);
  });

  it("the target's thread wins over the relation's; an empty or absent thread is none", () => {
    expect(threadParamOf(ctx({ threadId: "7" }, { threadId: "9" }))).toBe(7);
    expect(threadParamOf(ctx({ threadId: "1" }, { threadId: "9" }))).toBeUndefined();
    expect(threadParamOf(ctx({ threadId: "" }))).toBeUndefined();
    expect(threadParamOf(ctx({ kind: "group" }))).toBeUndefined();
    expect(threadParamOf(ctx({ kind: "group" }, {}))).toBeUndefined();
  });

  it("a thread id that is no integer is a TelegramRenderError naming it", () => {
    for (const bad of ["abc", "1.5", "9007199254740993"]) {
      let error: unknown;
      try {
        threadParamOf(ctx({ threadId: bad }));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TelegramRenderError);
      expect((error as Error).message).toContain(`not a forum topic id: ${bad}`);
    }
  });
});
