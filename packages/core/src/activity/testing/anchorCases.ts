/**
 * Cases 23–27, beyond the seed's plan (DESIGN §7–8): the log is threaded on the inbound's
 * `threadAnchor` only, the final reply stays where the user wrote, and `placement` moves it.
 *
 * @module
 */
import { expect, it } from "vitest";
import type { SuiteContext } from "./suiteHarness.ts";
import { tool } from "./threadCases.ts";

/** Registers cases 23–27. */
export function anchorCases(ctx: () => SuiteContext): void {
  it("23. logs into the user's own thread when they wrote inside one; the reply follows them", async () => {
    const c = ctx();
    c.forwarder();
    const root = await c.h.say("release notes?", { chat: c.chat });
    const thread = c.threadOf(root);
    if (thread === undefined) throw new Error("the harness gave the root no threadAnchor");
    const user = await c.h.say("and the changelog", { chat: c.chat, thread });
    expect(c.threadOf(user)).toBe(thread);
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read", "CHANGELOG.md"));
      await c.settle();
      await turn.reply("Here is the changelog.");
    });
    expect((await c.bot()).map((m) => [m.text.split("\n")[0], m.thread])).toEqual([
      [expect.stringContaining("tool: Read(CHANGELOG.md)"), thread],
      ["Here is the changelog.", thread],
    ]);
  });

  it("24. a root without a threadAnchor gets its activity top-level, never a thread made of its id", async () => {
    const c = ctx();
    c.forwarder();
    const { threadAnchor: _none, ...user } = await c.h.say("no anchor here", { chat: c.chat });
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown.map((m) => m.thread)).toEqual([undefined]);
    expect(shown[0]?.text).toContain("tool: Read(x)");
    expect(c.logs.some((l) => l.level === "warn" && /threadAnchor/.test(l.msg))).toBe(true);
  });

  it('25. placement "thread" puts the final reply into the log\'s thread', async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("summarize in the thread", { chat: c.chat });
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      await c.settle();
      await turn.reply("Summary: all green.", { placement: "thread" });
    });
    const shown = await c.bot();
    expect(shown.map((m) => [m.text.split("\n")[0], m.thread])).toEqual([
      [expect.stringContaining("tool: Read(x)"), c.threadOf(user)],
      ["Summary: all green.", c.threadOf(user)],
    ]);
  });

  it('26. placement "thread" without an anchor falls back to an inline reply', async () => {
    const c = ctx();
    const { threadAnchor: _none, ...user } = await c.h.say("hello", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.reply("Hi!", { placement: "thread" });
    });
    expect((await c.bot()).map((m) => [m.text, m.thread])).toEqual([["Hi!", undefined]]);
    const [reply] = await c.intents(turnId);
    expect(reply?.message.relation).toMatchObject({ kind: "reply", placement: "inline" });
  });

  it("27. every chunk of a long threaded reply stays in the thread, after the log (C21)", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("write it all down", { chat: c.chat });
    const long = Array.from({ length: 900 }, (_, i) => `word${i}`).join(" "); // > 2 messages
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Write", "notes.md"));
      await c.settle();
      await turn.reply(long, { placement: "thread" });
    });
    const shown = await c.bot();
    expect(shown.length).toBeGreaterThanOrEqual(3); // the log and at least two chunks
    expect(new Set(shown.map((m) => m.thread))).toEqual(new Set([c.threadOf(user)]));
    const bare = (text: string) => text.replace(/\s+/g, "");
    expect(
      bare(
        shown
          .slice(1)
          .map((m) => m.text)
          .join(""),
      ),
    ).toBe(bare(long)); // in order, whole
  });
}
