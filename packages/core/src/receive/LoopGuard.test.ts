/** CASES C11 (two bots ping-pong, Discord) and the loop guard's window and cooldown. */
import { describe, expect, it } from "vitest";
import { LoopGuard } from "./LoopGuard.ts";
import { manualClock } from "./testing/clock.ts";
import {
  createFakeDiscordAdapter,
  type DiscordDispatch,
  discordMessage,
} from "./testing/fakeDiscord.ts";
import { type ReceiveBench, receiveBench } from "./testing/harness.ts";

describe("LoopGuard", () => {
  it("accepts maxEvents per window, then drops the pair for the cooldown, then starts afresh", () => {
    const guard = new LoopGuard({ maxEvents: 3, windowMs: 10_000, cooldownMs: 60_000 });
    const at = (t: number) => guard.check("pair", t).action;
    expect([at(0), at(1_000), at(2_000), at(3_000)]).toEqual([
      "accept",
      "accept",
      "accept",
      "drop",
    ]);
    expect(at(30_000)).toBe("drop"); // cooling down, even though the window has passed
    expect(guard.check("other-pair", 30_000).action).toBe("accept");
    expect(at(63_000)).toBe("accept");
  });

  it("only counts events inside the sliding window", () => {
    const guard = new LoopGuard({ maxEvents: 2, windowMs: 10_000, cooldownMs: 60_000 });
    expect(guard.check("p", 0).action).toBe("accept");
    expect(guard.check("p", 9_000).action).toBe("accept");
    expect(guard.check("p", 10_500).action).toBe("accept"); // the event at 0 left the window
    expect(guard.check("p", 11_000).action).toBe("drop");
  });

  it("forgets the least recently seen pairs beyond maxPairs", () => {
    const guard = new LoopGuard({ maxEvents: 1, cooldownMs: 60_000, maxPairs: 2 });
    guard.check("a", 0);
    expect(guard.check("a", 1).action).toBe("drop");
    guard.check("b", 2);
    guard.check("c", 3); // evicts "a"
    expect(guard.check("a", 4).action).toBe("accept");
  });
});

describe("C11 · two bots ping-pong (Discord)", () => {
  const loopGuard = { maxEvents: 5, windowMs: 60_000, cooldownMs: 120_000 };

  /** A shared guild channel: every post is delivered to both bots; each bot answers every message. */
  function channel() {
    const clock = manualClock();
    const queue: DiscordDispatch[] = [];
    const posts: Array<{ author: string; content: string }> = [];
    let nextId = 10_000;
    const post = (author: { id: string; bot?: boolean }, content: string) => {
      posts.push({ author: author.id, content });
      queue.push(discordMessage(String(nextId++), author, content));
    };
    const bot = (id: string): ReceiveBench =>
      receiveBench([createFakeDiscordAdapter({ botId: id })], {
        clock,
        allowBots: true,
        // The registry's second look for a bot's room message (no native origin on the fake
        // Discord) waits real time; these bots share no store, so nothing is settling.
        echoSettleMs: 0,
        loopGuard,
        handler: (ctx) =>
          post({ id, bot: true }, `bot ${id} answers: ${ctx.input.body?.markdown}`.slice(0, 80)),
      });
    const a = bot("1000");
    const b = bot("2000");
    /** Delivers until quiet (at most `cap` posts: a loop without a guard would never end). */
    const pump = async (cap = 500) => {
      while (queue.length > 0 && posts.length < cap) {
        const dispatch = queue.shift() as DiscordDispatch;
        clock.advance(1_000); // each answer takes a second
        await Promise.all([
          a.runtime.receive(dispatch, { channel: "discord" }).done,
          b.runtime.receive(dispatch, { channel: "discord" }).done,
        ]);
      }
    };
    return { clock, posts, post, pump, a, b };
  }

  it("stops the exchange within a bounded number of turns and resumes after the cooldown", async () => {
    const ch = channel();
    ch.post({ id: "42" }, "hello bots");
    await ch.pump();
    const firstRun = ch.posts.length;
    // 1 human post; each bot answers it (2); then each bot accepts at most maxEvents of the other's.
    expect(firstRun).toBeLessThanOrEqual(1 + 2 + 2 * loopGuard.maxEvents);
    expect(firstRun).toBeGreaterThan(3);

    // While cooling down a human is still answered, but the bots do not start again.
    ch.post({ id: "42" }, "still there?");
    const beforeHuman = ch.posts.length;
    await ch.pump();
    expect(ch.posts.length - beforeHuman).toBe(2);

    // After the cooldown the bots talk again (and are stopped again).
    ch.clock.advance(loopGuard.cooldownMs);
    const beforeResume = ch.posts.length;
    ch.post({ id: "2000", bot: true }, "bot 2000 has news");
    await ch.pump();
    const resumed = ch.posts.length - beforeResume;
    expect(resumed).toBeGreaterThan(2);
    expect(resumed).toBeLessThanOrEqual(1 + 2 * loopGuard.maxEvents + 1);
  });

  it("would loop without the guard (control)", async () => {
    const clock = manualClock();
    let posts = 0;
    const queue: DiscordDispatch[] = [];
    const make = (id: string) =>
      receiveBench([createFakeDiscordAdapter({ botId: id })], {
        clock,
        allowBots: true,
        // The registry's second look for a bot's room message (no native origin on the fake
        // Discord) waits real time; these bots share no store, so nothing is settling.
        echoSettleMs: 0,
        loopGuard: false,
        handler: () => {
          posts += 1;
          queue.push(discordMessage(String(20_000 + posts), { id, bot: true }, "again"));
        },
      });
    const a = make("1000");
    const b = make("2000");
    queue.push(discordMessage("19999", { id: "42" }, "hello"));
    while (queue.length > 0 && posts < 100) {
      const d = queue.shift() as DiscordDispatch;
      await Promise.all([
        a.runtime.receive(d, { channel: "discord" }).done,
        b.runtime.receive(d, { channel: "discord" }).done,
      ]);
    }
    expect(posts).toBeGreaterThanOrEqual(100);
  });
});

describe("LoopGuard with limits shared in the store", () => {
  const rule = { maxEvents: 2, windowMs: 60_000, cooldownMs: 300_000 };
  const failing = {
    takeTokens: () => Promise.reject(new Error("unused")),
    settleTokens: () => Promise.resolve(),
    checkLoopPair: () => Promise.reject(new Error("store unavailable")),
  };

  it("asks the store with its rule and maps a drop to a loop_guard verdict", async () => {
    const asked: unknown[] = [];
    const guard = new LoopGuard(rule, {
      ...failing,
      checkLoopPair: (pair, r) => {
        asked.push([pair, r]);
        return Promise.resolve({ action: "drop", cooldownUntil: 42 });
      },
    });
    expect(await guard.verdict("p", 0)).toEqual({
      action: "drop",
      reason: "loop_guard",
      cooldownUntil: 42,
    });
    expect(asked).toEqual([["p", rule]]);
  });

  it("counts in memory when the store cannot be reached", async () => {
    const guard = new LoopGuard(rule, failing);
    expect((await guard.verdict("p", 0)).action).toBe("accept");
    expect((await guard.verdict("p", 1)).action).toBe("accept");
    expect((await guard.verdict("p", 2)).action).toBe("drop");
  });
});
