/**
 * Live previews on Telegram (sendMessage + editMessageText), asserted on what the chat shows:
 * C12–C15.
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";

const edits = (calls: Array<{ path: string }>) =>
  calls.filter((c) => c.path.endsWith("/editMessageText")).length;

describe("live previews on Telegram", () => {
  it("a preview answered without a message id, final equal to it: one visible message (C12)", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    b.fake.answerNextSendsWithoutMessageId(1);
    const live = await b.runtime.live({ channel: "telegram", target }, { idempotencyKey: "c12" });
    live.update("The answer is 42.");
    await eventually(
      () => b.fake.messages(chat.id),
      (v) => v.length === 1,
      { what: "the preview" },
    );
    await live.finalize("The answer is 42.");
    expect(b.fake.messages(chat.id).map((m) => m.text)).toEqual(["The answer is 42."]);
  });

  it("the final edit answered 'message to edit not found': the final is sent fresh, nothing else stays (C13)", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const live = await b.runtime.live({ channel: "telegram", target }, { idempotencyKey: "c13a" });
    live.update("Thinking");
    const [preview] = await eventually(
      () => b.fake.messages(chat.id),
      (v) => v.length === 1,
      { what: "the preview" },
    );
    b.fake.state.delete(preview?.id as string); // the user deleted it
    const receipt = await live.finalize("Final answer");
    const shown = b.fake.messages(chat.id);
    expect(shown.map((m) => m.text)).toEqual(["Final answer"]);
    expect(receipt.platformMessageIds).toEqual([`${chat.id}:${shown[0]?.id}`]);
  });

  it.each([
    ["a 429", { kind: "rate_limit", retryAfterMs: 1_000, via: "body" } as const],
    ["a 502", { kind: "status", status: 502 } as const],
    ["a reset", { kind: "reset_after_accept" } as const],
  ])(
    "the final edit failing with %s is retried as an edit: the preview becomes the final (C13)",
    async (_name, fault) => {
      const b = await openBench();
      const { chat, target } = b.dm();
      const live = await b.runtime.live(
        { channel: "telegram", target },
        { idempotencyKey: "c13b" },
      );
      live.update("Thinking");
      const [preview] = await eventually(
        () => b.fake.messages(chat.id),
        (v) => v.length === 1,
        { what: "the preview" },
      );
      await live.idle(); // the preview's answer is in: the final edits it (the case under test)
      b.fake.failNext(fault, { op: "edit" });
      const receipt = await live.finalize("Final answer");
      expect(b.fake.messages(chat.id).map((m) => [m.id, m.text])).toEqual([
        [preview?.id, "Final answer"],
      ]);
      expect(receipt.primaryPlatformMessageId).toBe(`${chat.id}:${preview?.id}`);
    },
  );

  it("a stale preview gets a fresh final, and the preview is deleted only after the final was accepted (C13)", async () => {
    const b = await openBench({ config: { previewStaleAfterMs: 1 } });
    const { chat, target } = b.dm();
    const live = await b.runtime.live({ channel: "telegram", target }, { idempotencyKey: "c13c" });
    live.update("Thinking");
    const [preview] = await eventually(
      () => b.fake.messages(chat.id),
      (v) => v.length === 1,
      { what: "the preview" },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await live.finalize("Final answer");
    const shown = b.fake.messages(chat.id);
    expect(shown.map((m) => m.text)).toEqual(["Final answer"]);
    const gone = b.fake.state.get(preview?.id as string);
    expect(gone?.deleted).toBe(true);
    expect(gone?.deletedAt ?? 0).toBeGreaterThanOrEqual(
      shown[0]?.createdAt ?? Number.POSITIVE_INFINITY,
    );
  });

  it("an update with the same text is skipped before any call, and 'not modified' is never an error (C14)", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const live = await b.runtime.live({ channel: "telegram", target }, { idempotencyKey: "c14" });
    live.update("Same text");
    await eventually(
      () => b.fake.messages(chat.id),
      (v) => v.length === 1,
      { what: "the preview" },
    );
    live.update("Same text");
    await new Promise((resolve) => setTimeout(resolve, 150));
    await live.finalize("Same text");
    expect(edits(b.fake.server.calls)).toBe(0);
    expect(b.fake.messages(chat.id).map((m) => m.history)).toEqual([["Same text"]]);
  });

  it("a 9000-character stream ends as three messages, the two previews reused (C15)", async () => {
    const b = await openBench();
    const { chat, target } = b.dm();
    const live = await b.runtime.live({ channel: "telegram", target }, { idempotencyKey: "c15" });
    const text = Array.from({ length: 1500 }, (_, i) => `w${i % 10}ord`)
      .join(" ")
      .slice(0, 9000);
    for (let end = 600; end < text.length; end += 600) {
      live.update(text.slice(0, end));
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await eventually(
      () => b.fake.messages(chat.id),
      (v) => v.length === 2,
      { what: "a second preview", timeoutMs: 8_000 },
    );
    const previews = b.fake.messages(chat.id).map((m) => m.id);
    const receipt = await live.finalize(text);
    const shown = b.fake.messages(chat.id);
    expect(shown).toHaveLength(3);
    expect(shown.slice(0, 2).map((m) => m.id)).toEqual(previews);
    for (const m of shown) expect(m.text.length).toBeLessThanOrEqual(4096);
    expect(
      shown
        .map((m) => m.text)
        .join("")
        .replace(/\s+/g, ""),
    ).toBe(text.replace(/\s+/g, ""));
    expect(receipt.platformMessageIds).toEqual(shown.map((m) => `${chat.id}:${m.id}`));
  });

  it("shows typing in a forum topic while the session runs", async () => {
    const b = await openBench();
    const { chat, target } = b.forum();
    b.fake.createTopic(chat.id, "Help", 42);
    const topic = { ...target, kind: "thread" as const, parentId: target.id, threadId: "42" };
    const live = await b.runtime.live(
      { channel: "telegram", target: topic },
      { idempotencyKey: "t", mode: "block" },
    );
    await eventually(
      () => b.fake.state.isTyping(String(chat.id), { thread: "42" }),
      (on) => on,
      { what: "typing in topic 42" },
    );
    await live.finalize("done");
    expect(b.fake.state.isTyping(String(chat.id), { thread: "42" })).toBe(false);
    expect(b.fake.messages(chat.id, { thread: 42 }).map((m) => m.text)).toEqual(["done"]);
  });
});
