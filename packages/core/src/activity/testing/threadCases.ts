/**
 * Cases 1–11 of the seed's E2E test plan (`threaded-activity-log.md`, "E2E test plan"): the
 * happy path, routing and filters, roll-over and length. Each asserts what the platform
 * shows and what the durable store holds.
 *
 * @module
 */
import { expect, it } from "vitest";
import type { TurnMessageInput } from "../../turn/types.ts";
import { LOG_CONTINUES_MARKER } from "../condense.ts";
import { TRUNCATED_MARKER } from "../format.ts";
import type { SuiteContext } from "./suiteHarness.ts";

/** A tool call entry. */
export function tool(name: string, input = "x", content?: string): TurnMessageInput {
  return { role: "tool", name, input, ...(content === undefined ? {} : { content }) };
}

const edits = async (c: SuiteContext, turnId: string) =>
  (await c.intents(turnId)).filter((i) => i.operation.kind === "edit");

/** Registers cases 1–11. */
export function threadCases(ctx: () => SuiteContext): void {
  it("1. opens a thread anchored on the user's message for the first thread-log event", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("deploy the app", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Read", "deploy.yml"));
      await c.settle();
      const [log] = await c.bot();
      expect(log?.thread).toBe(c.threadOf(user));
      expect(log?.text).toContain("tool: Read(deploy.yml)");
      // The log message's id is kept: the next event edits it instead of posting again.
      await turn.activity(tool("Bash", "make deploy"));
      await c.settle();
      const after = await c.bot();
      expect(after.map((m) => m.id)).toEqual([log?.id]);
      expect(after[0]?.text).toContain("tool: Bash(make deploy)");
    });
    const [create] = (await c.intents(turnId)).filter((i) => i.operation.kind === "send");
    expect(create?.message.relation).toMatchObject({
      kind: "reply",
      replyToId: user.platformMessageId,
      placement: "thread",
    });
    // The thread is where the channel's normalize said it lives, never the message id reused.
    expect(user.threadAnchor).toBeDefined();
    expect(create?.message.target.threadId).toBe(user.threadAnchor?.threadId);
  });

  it("2. edits the same log message on subsequent thread-log events", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("check the build", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Read"));
      await c.settle();
      await turn.activity(tool("Grep"));
      await c.idle();
      expect((await c.bot())[0]?.text).not.toContain("Grep"); // inside the debounce window
      expect(c.timers.size).toBe(1);
      await c.settle(); // past it
    });
    const [log, ...others] = await c.bot();
    expect(others).toEqual([]);
    expect(log?.text).toMatch(/tool: Read\(x\)\n.*tool: Grep\(x\)/);
    const made = await edits(c, turnId);
    expect(made).toHaveLength(1);
    expect(made[0]?.operation).toMatchObject({ receipt: { primaryPlatformMessageId: log?.id } });
  });

  it("3. coalesces bursts of thread-log events into a single edit", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("refactor", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Read"));
      await c.settle();
      for (const name of ["Grep", "Glob", "Edit"]) await turn.activity(tool(name));
      await c.settle();
    });
    expect(await edits(c, turnId)).toHaveLength(1);
    const names = [...((await c.bot())[0]?.text ?? "").matchAll(/tool: (\w+)/g)].map((m) => m[1]);
    expect(names).toEqual(["Read", "Grep", "Glob", "Edit"]);
  });

  it("4. routes the final reply to top-level, not the thread", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("ship it", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Bash", "make release"));
      await c.settle();
      await turn.reply("Shipped version 1.2.");
    });
    const reply = (await c.intents(turnId)).find((i) =>
      i.message.body?.markdown.startsWith("Shipped"),
    );
    expect(reply?.message.target.threadId).toBeUndefined();
    const shown = await c.bot();
    expect(
      shown.map((m) => [m.thread === undefined ? "top" : "thread", m.text.split("\n")[0]]),
    ).toEqual([
      ["thread", expect.stringContaining("tool: Bash(make release)")],
      ["top", "Shipped version 1.2."],
    ]);
  });

  it("5. flushes pending edits on turnEnded", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("write the file", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Read"));
      await c.settle();
      await turn.activity(tool("Write")); // the debounce is pending when the turn ends
    });
    expect(c.timers.size).toBe(0); // cancelled: flushed at once instead
    expect((await c.bot())[0]?.text).toContain("tool: Write(x)");
    expect(await edits(c, turnId)).toHaveLength(1);
  });

  it("6. drops UserMessage regardless of filters", async () => {
    const c = ctx();
    c.forwarder({ filters: { verbose: true, routes: { user: "top-level" } } });
    const user = await c.h.say("echo me", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity({ role: "user", text: "echo me" });
      await c.settle();
    });
    expect(await c.bot()).toEqual([]);
    expect(await c.intents(turnId)).toEqual([]);
  });

  it("7. routes a policy request into the turn thread with its card payload", async () => {
    const c = ctx();
    c.forwarder();
    const user = await c.h.say("clean up", { chat: c.chat });
    let turnId = "";
    const card = { buttons: ["allow", "deny"] };
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Bash", "ls build"));
      await c.settle();
      await turn.activity({
        role: "policy-request",
        text: "Allow deleting the build directory?",
        card,
      });
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown.map((m) => m.thread)).toEqual([c.threadOf(user), c.threadOf(user)]);
    expect(shown[1]?.text).toBe("Allow deleting the build directory?");
    const policy = (await c.intents(turnId)).find((i) =>
      i.message.body?.markdown.startsWith("Allow deleting"),
    );
    expect(policy?.message.raw).toEqual({ card });
    expect(policy?.message.target.threadId).toBe(user.threadAnchor?.threadId);
  });

  it("8. honours the filters config (verbose off hides subagent_update)", async () => {
    const c = ctx();
    c.forwarder({ filters: { verbose: false } });
    const user = await c.h.say("research", { chat: c.chat });
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity({
        role: "system",
        event: "subagent_update",
        text: "Explore read 12 files",
      });
      await c.settle();
    });
    expect(await c.bot()).toEqual([]);
  });

  it("9. rolls over to a new thread-log message under the default rollover strategy", async () => {
    const c = ctx();
    c.forwarder({ maxLogMessageChars: 200, condenseStrategy: "rollover" });
    const user = await c.h.say("run all steps", { chat: c.chat });
    const arg = "a".repeat(20); // each line is 45 characters long
    await c.h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Step1", arg));
      await c.settle();
      for (const i of [2, 3, 4, 5, 6]) await turn.activity(tool(`Step${i}`, arg));
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown).toHaveLength(2);
    expect(shown.map((m) => m.thread)).toEqual([c.threadOf(user), c.threadOf(user)]);
    expect(shown[0]?.text.endsWith(LOG_CONTINUES_MARKER)).toBe(true);
    expect(shown[0]?.text.length).toBeLessThanOrEqual(200);
    const steps = (text = "") => [...text.matchAll(/tool: (Step\d)/g)].map((m) => m[1]);
    expect(steps(shown[0]?.text)).toEqual(["Step1", "Step2", "Step3", "Step4"]);
    expect(steps(shown[1]?.text)).toEqual(["Step5", "Step6"]); // begins with the carried entries
  });

  it("10. drop-earliest keeps one message and drops old entries", async () => {
    const c = ctx();
    c.forwarder({ maxLogMessageChars: 200, condenseStrategy: "drop-earliest" });
    const user = await c.h.say("long job", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Step1", "b".repeat(20)));
      await c.settle();
      for (const batch of [
        [2, 3, 4, 5, 6],
        [7, 8, 9, 10],
      ]) {
        for (const i of batch) await turn.activity(tool(`Step${i}`, "b".repeat(20)));
        await c.settle();
      }
    });
    const shown = await c.bot();
    expect(shown).toHaveLength(1);
    expect((await c.intents(turnId)).filter((i) => i.operation.kind === "send")).toHaveLength(1);
    expect(await edits(c, turnId)).toHaveLength(2);
    const text = shown[0]?.text ?? "";
    expect(text).toMatch(/^• …\d+ earlier entries dropped\n/);
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text.endsWith("tool: Step10(bbbbbbbbbbbbbbbbbbbb)")).toBe(true);
  });

  it("11. aggressive-truncate keeps all entries with shortened summaries", async () => {
    const c = ctx();
    c.forwarder({ maxLogMessageChars: 300, condenseStrategy: "aggressive-truncate" });
    const user = await c.h.say("dump the logs", { chat: c.chat });
    await c.h.runtime.turn(user, async (turn) => {
      for (const i of [1, 2, 3, 4]) await turn.activity(tool(`Cat${i}`, "", "z".repeat(500)));
      await c.settle();
    });
    const shown = await c.bot();
    expect(shown).toHaveLength(1);
    const text = shown[0]?.text ?? "";
    expect(text.length).toBeLessThanOrEqual(300);
    const lines = text.split("\n");
    expect(lines).toHaveLength(4);
    for (const [i, line] of lines.entries()) {
      expect(line).toContain(`tool: Cat${i + 1}`);
      expect(line.endsWith(TRUNCATED_MARKER)).toBe(true);
    }
  });

  it("log text is literal: tool output with *, _, <b> and [x](y) shows as typed", async () => {
    const c = ctx();
    c.forwarder({ filters: { routes: { error: "top-level" } } });
    const user = await c.h.say("look for markup", { chat: c.chat });
    let turnId = "";
    await c.h.runtime.turn(user, async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Grep", "*_x_*", "<b>bold</b> **not** [x](https://e.x)"));
      await turn.activity({ role: "error", text: "exit 1: `_tmp_` <i>" });
      await c.settle();
    });
    const shown = (await c.bot()).map((m) => m.text);
    expect(shown.join("\n")).toContain("tool: Grep(*_x_*) — <b>bold</b> **not** [x](https://e.x)");
    expect(shown.join("\n")).toContain("exit 1: `_tmp_` <i>");
    // Every activity message is marked literal on its intent, in the thread and top-level, so
    // every channel escapes it for its dialect (DESIGN §7).
    const sends = (await c.intents(turnId)).filter((i) => i.operation.kind === "send");
    expect(sends.length).toBe(2);
    for (const i of sends) expect(i.message.body).toMatchObject({ literal: true });
  });
}
