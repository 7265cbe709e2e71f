import { describe, expect, it, onTestFinished } from "vitest";
import { ALICE, FAKE_BOT } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

describe("history (H23)", () => {
  it("H23 history: conversations.history, oldest first, normalized like inbound; the bot's own are outbound; before pages back", async () => {
    const run = await openSlackRun(onTestFinished, {}, { historyIntervalMs: 0 });
    const channel = run.fake.createChannel().id;
    const a = run.fake.addMessage({ channel, text: "one", user: ALICE.id });
    run.fake.addMessage({ channel, text: "two", user: FAKE_BOT.userId, bot: FAKE_BOT });
    run.fake.addMessage({ channel, text: "three", user: ALICE.id });
    const target = { kind: "group" as const, id: channel };
    const all = await run.runtime.history({
      channel: "slack",
      accountId: "main",
      target,
      limit: 10,
    });
    expect(all.map((m) => m.body?.markdown)).toEqual(["one", "two", "three"]);
    expect(all[0]).toMatchObject({
      channel: "slack",
      direction: "inbound",
      sender: { id: ALICE.id },
      platformMessageId: `${channel}:${a.ts}`,
    });
    expect(all[1]?.direction).toBe("outbound");
    const last = await run.runtime.history({
      channel: "slack",
      accountId: "main",
      target,
      limit: 1,
    });
    expect(last.map((m) => m.body?.markdown)).toEqual(["three"]);
    const older = await run.runtime.history({
      channel: "slack",
      accountId: "main",
      target,
      limit: 10,
      before: last[0]?.platformMessageId as string,
    });
    expect(older.map((m) => m.body?.markdown)).toEqual(["one", "two"]);
  });

  it("H23 history: a thread through conversations.replies, its root first", async () => {
    const run = await openSlackRun(onTestFinished, {}, { historyIntervalMs: 0 });
    const channel = run.fake.createChannel().id;
    const root = run.fake.addMessage({ channel, text: "root", user: ALICE.id });
    run.fake.addMessage({ channel, text: "r1", user: ALICE.id, threadTs: root.ts });
    run.fake.addMessage({ channel, text: "r2", user: ALICE.id, threadTs: root.ts });
    const list = await run.runtime.history({
      channel: "slack",
      accountId: "main",
      target: { kind: "group", id: channel },
      threadId: root.ts,
      limit: 10,
    });
    expect(list.map((m) => m.body?.markdown)).toEqual(["root", "r1", "r2"]);
  });
});
