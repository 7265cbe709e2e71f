import type { InboundReaction } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it, onTestFinished } from "vitest";
import { emojiOfSlackName, slackEmojiName } from "./reactions.ts";
import { ALICE, FAKE_BOT, reactionsOn } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

describe("reactions (H23)", () => {
  it("H23 react: reactions.add puts the bot's reaction on; a replay answered already_reacted is success and leaves it on", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    const m = run.fake.addMessage({ channel, text: "deploy?", user: ALICE.id });
    const target = { kind: "group" as const, id: channel };
    const messageId = `${channel}:${m.ts}`;
    // The add lands on Slack but its answer is lost (connection reset): maybe sent → replayed.
    run.fake.failNext({ kind: "reset_after_accept" }, { op: "react" });
    const receipt = await run.runtime.react({
      channel: "slack",
      accountId: "main",
      target,
      messageId,
      emoji: "👀",
      idempotencyKey: "h23-react-1",
    });
    expect(receipt.parts[0]).toMatchObject({ kind: "reaction", replyToId: messageId });
    expect(reactionsOn(run.fake, channel, m.ts)).toEqual({ eyes: [FAKE_BOT.userId] });
    const outcomes = run.fake.server.calls.filter((c) => c.op === "react").map((c) => c.outcome);
    expect(outcomes.length).toBeGreaterThanOrEqual(2);
    // The same operation again (a replay after a crash) and another add: still on, never off.
    await run.adapter.send.react?.({ log: run.logger } as never, {
      target,
      messageId,
      emoji: "eyes",
    });
    await run.runtime.react({
      channel: "slack",
      accountId: "main",
      target,
      messageId,
      emoji: "eyes",
      idempotencyKey: "h23-react-2",
    });
    expect(reactionsOn(run.fake, channel, m.ts)).toEqual({ eyes: [FAKE_BOT.userId] });
  });

  it("H23 unreact: reactions.remove takes it off; a replayed remove answered no_reaction is success", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    const m = run.fake.addMessage({ channel, text: "deploy?", user: ALICE.id });
    const base = {
      channel: "slack",
      accountId: "main",
      target: { kind: "group" as const, id: channel },
      messageId: `${channel}:${m.ts}`,
      emoji: "white_check_mark",
    };
    await run.runtime.react({ ...base, idempotencyKey: "add" });
    await run.runtime.react({ ...base, remove: true, idempotencyKey: "remove" });
    expect(reactionsOn(run.fake, channel, m.ts)).toEqual({});
    await run.adapter.send.react?.({ log: run.logger } as never, { ...base, remove: true });
    expect(reactionsOn(run.fake, channel, m.ts)).toEqual({});
  });

  it("H23 react: a missing message is a typed not_found failure, not success", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    await expect(
      run.runtime.react({
        channel: "slack",
        accountId: "main",
        target: { kind: "group", id: channel },
        messageId: `${channel}:1700000000.000100`,
        emoji: "eyes",
        idempotencyKey: "missing",
      }),
    ).rejects.toThrow(/message_not_found/);
  });

  it("H23 inbound: reaction_added / reaction_removed reach the reaction handler once each, redeliveries deduped", async () => {
    const run = await openSlackRun(onTestFinished);
    const seen: InboundReaction[] = [];
    run.runtime.onReaction((r) => {
      seen.push(r);
    });
    const channel = run.fake.createChannel().id;
    const m = run.fake.addMessage({ channel, text: "ship it", user: FAKE_BOT.userId });
    const added = await run.fake.userReact({ channel, ts: m.ts, name: "tada" });
    // Slack redelivers with a new event_id: the same reaction.
    await run.fake.events.deliver(FAKE_BOT, added);
    await run.fake.userReact({ channel, ts: m.ts, name: "tada", remove: true });
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[0]).toMatchObject({
      kind: "reaction",
      channel: "slack",
      accountId: "main",
      target: { kind: "group", id: channel },
      sender: { id: ALICE.id },
      messageId: `${channel}:${m.ts}`,
      emoji: "🎉",
      removed: false,
    });
    expect(seen[1]).toMatchObject({ emoji: "🎉", removed: true });
    expect(run.outcomes.filter((o) => o.status === "duplicate")).toHaveLength(1);
  });

  it("emoji names: colons are dropped, Unicode is sent by its name, standard names come back as Unicode", () => {
    expect(slackEmojiName(":eyes:")).toBe("eyes");
    expect(slackEmojiName("thumbsup")).toBe("thumbsup");
    expect(slackEmojiName("👀")).toBe("eyes");
    expect(slackEmojiName("✅")).toBe("white_check_mark");
    expect(emojiOfSlackName("tada")).toBe("🎉");
    expect(emojiOfSlackName("party-parrot")).toBe("party-parrot");
  });
});
