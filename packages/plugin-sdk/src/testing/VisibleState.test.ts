import { describe, expect, it } from "vitest";
import { VisibleState } from "./VisibleState.ts";

const bot = { id: "bot", bot: true };

describe("VisibleState", () => {
  it("returns the first message for a repeated client key when idempotent keys are on", () => {
    const state = new VisibleState({ idempotentKeys: true });
    const first = state.post({ chat: "c1", text: "hi", author: bot, key: "k#0" });
    const again = state.post({ chat: "c1", text: "hi", author: bot, key: "k#0" });
    expect(again).toEqual({ message: first.message, duplicate: true });
    state.idempotentKeys = false;
    state.post({ chat: "c1", text: "hi", author: bot, key: "k#0" });
    expect(state.messages({ chat: "c1" })).toHaveLength(2);
  });

  it("forgets a client key after the platform's dedupe window (keyTtlMs)", () => {
    let now = 1_000_000;
    const state = new VisibleState({ idempotentKeys: true, keyTtlMs: 60_000, clock: () => now });
    const first = state.post({ chat: "c1", text: "hi", author: bot, key: "nonce-1" });
    now += 59_999;
    expect(state.post({ chat: "c1", text: "hi", author: bot, key: "nonce-1" }).duplicate).toBe(
      true,
    );
    now += 1;
    const late = state.post({ chat: "c1", text: "hi", author: bot, key: "nonce-1" });
    expect(late.duplicate).toBe(false);
    expect(late.message.id).not.toBe(first.message.id);
    now += 30_000; // within the window of the second post
    expect(state.post({ chat: "c1", text: "hi", author: bot, key: "nonce-1" }).message.id).toBe(
      late.message.id,
    );
    expect(state.byKey("nonce-1", "c1")).toHaveLength(2);
  });

  it("keeps every text a message showed; identical text is not a change", () => {
    const state = new VisibleState();
    const { message } = state.post({ chat: "c1", text: "draft", author: bot });
    expect(state.edit(message.id, "final").status).toBe("edited");
    expect(state.edit(message.id, "final").status).toBe("not_modified");
    expect(state.get(message.id)?.history).toEqual(["draft", "final"]);
  });

  it("hides deleted messages unless asked, and answers not_found for them afterwards", () => {
    const state = new VisibleState();
    const { message } = state.post({ chat: "c1", text: "bye", author: bot });
    expect(state.delete(message.id).status).toBe("deleted");
    expect(state.delete(message.id).status).toBe("not_found");
    expect(state.edit(message.id, "x").status).toBe("not_found");
    expect(state.messages()).toEqual([]);
    expect(state.messages({ includeDeleted: true })[0]?.deleted).toBe(true);
  });

  it("separates threads from top-level messages", () => {
    const state = new VisibleState();
    const root = state.post({ chat: "c1", text: "root", author: bot }).message;
    state.post({ chat: "c1", thread: root.id, text: "reply", author: bot });
    expect(state.messages({ chat: "c1", thread: null }).map((m) => m.text)).toEqual(["root"]);
    expect(state.messages({ thread: root.id }).map((m) => m.text)).toEqual(["reply"]);
  });

  it("lets a typing indicator lapse, and a message from its author end it", () => {
    let now = 1_000;
    const state = new VisibleState({ clock: () => now, typingLapseMs: 5_000 });
    state.typing("c1", "bot", true);
    expect(state.isTyping("c1")).toBe(true);
    now += 5_001;
    expect(state.isTyping("c1")).toBe(false);
    state.typing("c1", "bot", true);
    state.post({ chat: "c1", text: "done", author: bot });
    expect(state.isTyping("c1", { userId: "bot" })).toBe(false);
  });

  it("reports changes in order to subscribers", () => {
    const state = new VisibleState();
    const seen: string[] = [];
    const off = state.subscribe((c) => seen.push(c.type));
    const { message } = state.post({ chat: "c1", text: "a", author: bot });
    state.edit(message.id, "b");
    state.typing("c1", "bot", true);
    state.delete(message.id);
    off();
    state.post({ chat: "c1", text: "c", author: bot });
    expect(seen).toEqual(["created", "edited", "typing", "deleted"]);
  });
});
