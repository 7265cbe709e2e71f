/**
 * C44 (b): Slack accepts a burst of posts in one channel (`ok: true`) but may neither store nor
 * show the ones over about one a second (api.slack.com/apis/rate-limits, "Posting messages").
 * The fake is switched to do exactly that (`postsShownPerChannelPerSecond: 1`); herald, at its
 * default `rateLimits.postsPerChannelPerSecond: 1`, must pace so that every post it counts as
 * sent is shown.
 */
import type { MessageTarget } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it, onTestFinished } from "vitest";
import { ALICE } from "./testing/index.ts";
import { openSlackRun, type SlackTestRun } from "./testkit.ts";

/** Slack's own post limit (the config default; the test config loosens it). */
const SLACK_LIMIT = { rateLimits: { postsPerChannelPerSecond: 1 } };
/** The fake shows one post per channel per second and drops the rest of a burst silently. */
const SHOWS_ONE_A_SECOND = { postsShownPerChannelPerSecond: 1 };

const shownTexts = (run: SlackTestRun, channel: string) =>
  run.fake
    .messages(channel)
    .filter((m) => m.author.bot)
    .map((m) => m.text);

async function enqueueAll(run: SlackTestRun, sends: Array<[string, MessageTarget, string]>) {
  for (const [key, target, text] of sends) {
    await run.runtime.enqueue(run.message("slack", target, text), { idempotencyKey: key });
  }
  for (const [key] of sends) expect((await run.settled(key, 15_000)).status).toBe("sent");
}

describe("C44 (b) · a burst accepted but not shown", () => {
  it("the fake's switch bites: unpaced posts (50 a second allowed) are answered ok but some are never shown", async () => {
    const run = await openSlackRun(
      onTestFinished,
      { rateLimits: { postsPerChannelPerSecond: 50 } },
      SHOWS_ONE_A_SECOND,
    );
    const channel = run.fake.createChannel().id;
    const target: MessageTarget = { kind: "group", id: channel };
    await enqueueAll(run, [
      ["a", target, "one"],
      ["b", target, "two"],
      ["c", target, "three"],
    ]);
    expect(run.fake.postsHidden.length).toBeGreaterThan(0);
    expect(shownTexts(run, channel).length).toBeLessThan(3);
  });

  it("a three-part reply and another reply into one channel, at Slack's limit: every post is shown, in order", async () => {
    const run = await openSlackRun(
      onTestFinished,
      { ...SLACK_LIMIT, maxTextLength: 20 },
      SHOWS_ONE_A_SECOND,
    );
    const channel = run.fake.createChannel().id;
    const root = run.fake.addMessage({ channel, text: "root", user: ALICE.id });
    await enqueueAll(run, [
      [
        "reply",
        { kind: "group", id: channel },
        "chunk one is here. chunk two is here. chunk three here.",
      ],
      [
        "thread",
        { kind: "thread", id: channel, parentId: channel, threadId: root.ts },
        "in the thread",
      ],
    ]);
    expect(run.fake.postsHidden).toEqual([]);
    expect(shownTexts(run, channel)).toHaveLength(4);
    const at = run.fake.posts.map((p) => p.at);
    for (let i = 1; i < at.length; i += 1) {
      expect((at[i] ?? 0) - (at[i - 1] ?? 0)).toBeGreaterThanOrEqual(1_000);
    }
  });

  it("one DM named two ways — by the person (its D… channel as nativeChannelId) and by the channel — is paced as one channel", async () => {
    const run = await openSlackRun(onTestFinished, SLACK_LIMIT, SHOWS_ONE_A_SECOND);
    const dm = run.fake.createChannel({ type: "im" }).id;
    const byPerson: MessageTarget = { kind: "direct", id: ALICE.id, nativeChannelId: dm };
    const byChannel: MessageTarget = { kind: "direct", id: dm };
    await enqueueAll(run, [
      ["person", byPerson, "hello from the app"],
      ["channel", byChannel, "a reply in the DM"],
    ]);
    expect(run.fake.postsHidden).toEqual([]);
    expect(shownTexts(run, dm).sort()).toEqual(["a reply in the DM", "hello from the app"]);
  });
});
