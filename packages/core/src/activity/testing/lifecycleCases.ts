/**
 * Cases 12–22 of the seed's E2E test plan (`threaded-activity-log.md`, "E2E test plan"):
 * config and DMs, error handling, lifecycle and state, subagent propagation.
 *
 * @module
 */
import { expect, it } from "vitest";
import { TURN_EVENT } from "../../turn/types.ts";
import type { SuiteContext } from "./suiteHarness.ts";
import { tool } from "./threadCases.ts";

/** Registers cases 12–22. */
export function lifecycleCases(ctx: () => SuiteContext): void {
  it("12. falls back to top-level when threadsDisabled is set on the space", async () => {
    const c = ctx();
    c.forwarder({ threadsDisabled: ["space-ops"] });
    const user = await c.h.say("status?", { chat: c.chat, spaceId: "space-ops" });
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read", "status.json"));
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown).toHaveLength(1);
    expect(shown[0]?.thread).toBeUndefined();
    expect(shown[0]?.text).toContain("tool: Read(status.json)");
  });

  it("13. falls back to top-level when threads are off globally", async () => {
    const c = ctx();
    c.forwarder({ threads: false });
    const user = await c.h.say("status?", { chat: c.chat });
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read", "status.json"));
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown.map((m) => m.thread)).toEqual([undefined]);
    expect(shown[0]?.text).toContain("tool: Read(status.json)");
  });

  it("14. DM chats open a thread only where the channel has threads in DMs (threads.inDirect)", async () => {
    const c = ctx();
    c.forwarder();
    const dm = `${c.chat}-dm`;
    const user = await c.h.say("hi bot", { chat: dm, dm: true });
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      await c.settle();
      await turn.reply("Here you go.");
    });
    const shown = (await c.bot(dm)).map((m) => [m.text.split("\n")[0], m.thread]);
    const inDirect = c.h.runtime.adapter(user.channel)?.capabilities.threads?.inDirect === true;
    if (inDirect) {
      // Threaded like any chat; the reply stays top-level.
      expect(shown).toEqual([
        [expect.stringContaining("tool: Read(x)"), c.threadOf(user)],
        ["Here you go.", undefined],
      ]);
      expect(c.threadOf(user)).toBeDefined();
    } else {
      // Seed "DM behavior": the log is dropped, only the reply is shown.
      expect(shown).toEqual([["Here you go.", undefined]]);
    }
  });

  it("15. falls back to top-level when the thread-log create fails", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("try it", { chat: c.chat });
    await c.h.failNext("send", 403);
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      await c.settle();
      await turn.activity(tool("Grep"));
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown.every((m) => m.thread === undefined)).toBe(true);
    expect(shown.map((m) => m.text).join("\n")).toMatch(/tool: Read\(x\)[\s\S]*tool: Grep\(x\)/);
    expect(c.logs.some((l) => l.level === "error" && /open the activity log/.test(l.msg))).toBe(
      true,
    );
    // The turn's context is gone: the next turn opens its thread normally.
    const next = await c.h.say("again", { chat: c.chat });
    await c.h.runtime.turn(next, async (turn) => {
      await turn.activity(tool("Glob"));
      await c.settle();
    });
    expect((await c.bot()).filter((m) => m.thread === c.threadOf(next))).toHaveLength(1);
  });

  it("16. finalizes and re-creates on edit failure", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("edit storm", { chat: c.chat });
    let turnId = "";
    const texts = async () => (await c.bot()).map((m) => m.text);
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Read"));
      await c.settle();
      // One failed edit: retried once after 500 ms, and the retry lands in the same message.
      await c.h.failNext("edit", 403, 1);
      await turn.activity(tool("Grep"));
      await c.settle();
      expect(c.timers.delays).toContain(500);
      expect(await texts()).toEqual([expect.stringMatching(/Read[\s\S]*Grep/)]);
      // Two in a row: the message keeps its last text and is left alone.
      await c.h.failNext("edit", 403, 2);
      await turn.activity(tool("Glob"));
      await c.settle();
      expect(await texts()).toEqual([expect.not.stringContaining("Glob")]);
      // The next event opens a fresh log message in the same thread, carrying what was not shown.
      await turn.activity(tool("Bash"));
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown.map((m) => m.thread)).toEqual([c.threadOf(user), c.threadOf(user)]);
    expect(shown[1]?.text).toMatch(/tool: Glob\(x\)\n.*tool: Bash\(x\)/);
    const creates = (await c.intents(turnId)).filter((i) => i.operation.kind === "send");
    expect(creates).toHaveLength(2); // a fresh create, not another edit
    expect(c.logs.some((l) => l.level === "warn" && /failed twice/.test(l.msg))).toBe(true);
  });

  it("17. recovers from a 404 on edit by opening a new log message", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("long run", { chat: c.chat });
    let deleted = "";
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      await c.settle();
      deleted = (await c.bot())[0]?.id ?? "";
      await c.h.deleteAsUser(c.chat, deleted);
      await turn.activity(tool("Grep"));
      await c.settle();
      await turn.activity(tool("Glob"));
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown).toHaveLength(1);
    expect(shown[0]?.id).not.toBe(deleted);
    expect(shown[0]?.thread).toBe(c.threadOf(user));
    expect(shown[0]?.text).toMatch(/tool: Grep\(x\)\n.*tool: Glob\(x\)/);
  });

  it("18. cleans up the turn context on turnEnded", async () => {
    const c = ctx();
    c.forwarder();
    const first = await c.h.say("first", { chat: c.chat });
    await c.h.runtime.turn(first, async (turn) => {
      await turn.activity(tool("Read"));
    });
    const second = await c.h.say("second", { chat: c.chat });
    await c.h.runtime.turn(second, async (turn) => {
      await turn.activity(tool("Grep"));
    });
    await c.settle();
    const shown = await c.bot();
    expect(shown.map((m) => m.thread)).toEqual([c.threadOf(first), c.threadOf(second)]);
    expect(c.threadOf(first)).not.toBe(c.threadOf(second));
    expect(shown[0]?.text).not.toContain("Grep");
    expect(shown[1]?.text).toContain("tool: Grep(x)");
  });

  it("19. handles turnEnded with no thread-log events as a no-op", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("thanks!", { chat: c.chat });
    await c.h.runtime.turn(user, async (turn) => {
      await turn.reply("You're welcome.");
    });
    await c.settle();
    expect((await c.bot()).map((m) => [m.text, m.thread])).toEqual([
      ["You're welcome.", undefined],
    ]);
    expect(c.logs.filter((l) => l.level === "warn" || l.level === "error")).toEqual([]);
  });

  it("20. groups parent-agent and subagent activity into one thread", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("investigate", { chat: c.chat });
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Plan"));
      await c.h.runtime.subagent("Explore", async () => {
        await c.h.runtime.activity(tool("Read", "src/app.ts"));
      });
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown).toHaveLength(1);
    expect(shown[0]?.thread).toBe(c.threadOf(user));
    const summaries = (shown[0]?.text ?? "").split("\n").map((l) => l.replace(/^• \S+ {2}/, ""));
    expect(summaries).toEqual([
      "tool: Plan(x)",
      "subagent: Explore started",
      "tool: Read(src/app.ts)",
      expect.stringMatching(/^subagent: Explore done \(\d+m?s\)$/),
    ]);
  });

  it("21. propagates turnId through nested subagents", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("deep dive", { chat: c.chat });
    let turnId = "";
    let conversation = "";
    const { runtime } = c.h;
    await runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      conversation = turn.conversation;
      await turn.activity(tool("Plan"));
      await runtime.subagent("child", async () => {
        await runtime.activity(tool("ChildTool"));
        await runtime.subagent("grandchild", async () => {
          await runtime.activity(tool("GrandchildTool"));
        });
      });
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown).toHaveLength(1);
    expect(shown[0]?.thread).toBe(c.threadOf(user));
    for (const name of ["Plan", "ChildTool", "GrandchildTool"])
      expect(shown[0]?.text).toContain(name);
    expect(shown[0]?.text.split("\n")).toHaveLength(7); // 3 tools + 2 × (started, done)
    const nodes = (await runtime.store.readLedger({ conversation, limit: 100 })).filter(
      (e) => e.type === TURN_EVENT.message,
    );
    expect(nodes.length).toBe(8); // the user node + 7 entries
    expect(new Set(nodes.map((e) => e.turnId))).toEqual(new Set([turnId]));
  });

  it("22. activity from a subagent without a turnId does not open a second thread", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("watch this", { chat: c.chat });
    let opened: () => void = () => {};
    const logOpen = new Promise<void>((r) => {
      opened = r;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const running = c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      await c.settle();
      opened();
      await gate;
    });
    await logOpen;
    // Out of the turn scope (a propagation bug): no turnId, but it knows its chat.
    const orphan = await c.h.runtime.activity({
      ...tool("Orphan"),
      channel: user.channel,
      target: user.target,
      ...(user.accountId === undefined ? {} : { accountId: user.accountId }),
    });
    expect(orphan.turnId).toBeUndefined();
    await c.settle();
    release();
    await running;
    const shown = await c.bot();
    expect(shown.filter((m) => m.thread !== undefined)).toHaveLength(1);
    expect(shown.filter((m) => m.thread === undefined).map((m) => m.text)).toEqual([
      expect.stringContaining("tool: Orphan(x)"),
    ]);
    expect(c.logs.some((l) => l.level === "warn" && /without a turnId/.test(l.msg))).toBe(true);
  });
}
