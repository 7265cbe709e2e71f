import { afterEach, describe, expect, it } from "vitest";
import { type TurnHarness, turnHarness } from "../turn/testing/harness.ts";

let h: TurnHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const tool = (name: string) => ({ role: "tool" as const, name, input: "x" });
const threads = (harness: TurnHarness, chat = "room-1") =>
  harness.botMessages(chat).map((m) => [m.thread ?? "top", m.text.split("\n").length]);

describe("ActivityLogForwarder", () => {
  it("reuses the user's thread when they posted inside one", async () => {
    h = await turnHarness();
    const log = h.activityLog();
    const parent = h.say("original post");
    const user = h.say("follow-up in the thread", { thread: parent.platformMessageId ?? "" });
    await h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      await turn.reply("answered in the thread");
    });
    await log.idle();
    expect(h.botMessages().map((m) => [m.text.replace(/^• \S+ {2}/, ""), m.thread])).toEqual([
      ["tool: Read(x)", parent.platformMessageId],
      ["answered in the thread", parent.platformMessageId],
    ]);
  });

  it("posts top-level on a channel without thread replies", async () => {
    h = await turnHarness({ adapter: { threads: false } });
    const log = h.activityLog();
    await h.runtime.turn(h.say("go"), async (turn) => {
      await turn.activity(tool("Read"));
    });
    await log.idle();
    expect(threads(h)).toEqual([["top", 1]]);
  });

  it("follows a channel that replaces a deleted log message on edit (freshSendOnEditNotFound)", async () => {
    h = await turnHarness({ adapter: { freshSendOnEditNotFound: true } });
    const log = h.activityLog();
    const user = h.say("go");
    await h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      const first = h?.botMessages()[0];
      if (first) first.deleted = true;
      await turn.activity(tool("Grep"));
      await h?.time.advance(1_000); // the edit finds nothing: the channel sends it fresh
      await turn.activity(tool("Glob"));
      await h?.time.advance(1_000); // …and the next edit lands on that new message
    });
    await log.idle();
    expect(threads(h)).toEqual([[user.platformMessageId, 3]]);
  });

  it("posts activity of a turn it has no context for top-level, with a warning", async () => {
    h = await turnHarness();
    const user = h.say("go");
    let log: ReturnType<TurnHarness["activityLog"]> | undefined;
    await h.runtime.turn(user, async (turn) => {
      log = h?.activityLog(); // created after the turn started
      await turn.activity(tool("Read"));
    });
    await log?.idle();
    expect(threads(h)).toEqual([["top", 1]]);
    expect(h.logs.some((l) => l.level === "warn" && /no context/.test(l.msg))).toBe(true);
  });

  it("sends through the durable path: every log message is an intent with the turn's id", async () => {
    h = await turnHarness();
    const log = h.activityLog();
    let turnId = "";
    await h.runtime.turn(h.say("go"), async (turn) => {
      turnId = turn.turnId;
      await turn.activity(tool("Read"));
      await turn.activity(tool("Grep"));
    });
    await log.idle();
    const intents = await h.store.listIntents();
    expect(intents.map((i) => [i.idempotencyKey, i.status, i.turnId])).toEqual([
      [`activity:${turnId}:log:0`, "sent", turnId],
      [`activity:${turnId}:log:0:v1`, "sent", turnId],
    ]);
  });

  it("flushes open turns on close and stops listening", async () => {
    h = await turnHarness();
    const log = h.activityLog();
    const user = h.say("go");
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const running = h.runtime.turn(user, async (turn) => {
      await turn.activity(tool("Read"));
      await turn.activity(tool("Grep"));
      await gate;
      await turn.activity(tool("Late"));
    });
    await h.time.settle();
    await log.close();
    release();
    await running;
    expect(h.botMessages().map((m) => m.text.includes("Grep") && !m.text.includes("Late"))).toEqual(
      [true],
    );
  });
});
