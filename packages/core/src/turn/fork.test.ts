import { afterEach, describe, expect, it } from "vitest";
import { ForkTargetNotEmptyError, ForkUnavailableError } from "./errors.ts";
import { type TurnHarness, turnHarness } from "./testing/harness.ts";
import { TURN_EVENT, type TurnMessage } from "./types.ts";

let h: TurnHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CONVERSATION = "chat/qa/bot-1/room-1";

/** Two completed turns: seqs 1..5 (start, user, tool, assistant, end) and 6..9. */
async function twoTurns(harness: TurnHarness) {
  await harness.runtime.turn(harness.say("one"), async (t) => {
    await t.activity({ role: "tool", name: "Read", content: "x" });
    await t.reply("answer one");
  });
  await harness.runtime.turn(harness.say("two"), async (t) => {
    await t.reply("answer two");
  });
}

const texts = (events: Array<{ type: string; data?: unknown }>) =>
  events
    .filter((e) => e.type === TURN_EVENT.message)
    .map((e) => {
      const m = e.data as TurnMessage & { text?: string };
      return `${m.role}:${m.text ?? ""}`;
    });

describe("completed-turn forks", () => {
  it("copies through the containing turn/end, whatever seq of the turn is asked", async () => {
    h = await turnHarness();
    await twoTurns(h);
    // seq 2 is turn one's user message, seq 3 its tool node: both cut at seq 5 (turn/end).
    for (const atSeq of [2, 3, 5]) {
      const result = await h.runtime.ledger.fork({ conversation: CONVERSATION, atSeq });
      expect(result).toMatchObject({ throughSeq: 5, copied: 5 });
      const copy = await h.ledger(result.conversation);
      expect(copy[0]).toMatchObject({
        type: TURN_EVENT.forkOrigin,
        data: { from: CONVERSATION, atSeq, throughSeq: 5 },
      });
      expect(texts(copy)).toEqual(["user:one", "tool:", "assistant:answer one"]);
      expect(copy.at(-1)).toMatchObject({ type: TURN_EVENT.end, data: { outcome: "completed" } });
    }
  });

  it("keeps the branch target of the fork point as the tail of the copy", async () => {
    h = await turnHarness();
    await twoTurns(h);
    const source = await h.runtime.ledger.snapshot({ conversation: CONVERSATION });
    const [first] = h.runtime.ledger.branchEligibility(source);
    if (!first) throw new Error("expected a branch target");
    const { conversation } = await h.runtime.ledger.fork({
      conversation: CONVERSATION,
      atSeq: first.seq,
      into: "chat/qa/bot-1/room-1~branch",
    });
    const copy = await h.runtime.ledger.snapshot({ conversation });
    const tails = h.runtime.ledger.branchEligibility(copy);
    expect(tails).toHaveLength(1);
    const tail = copy.nodes.find((n) => n.seq === tails[0]?.seq)?.message;
    expect(tail).toMatchObject({ role: "assistant", text: "answer one" });
  });

  it("rejects a seq inside an open turn with ForkUnavailableError and writes nothing", async () => {
    h = await turnHarness();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let ready: () => void = () => {};
    const replied = new Promise<void>((r) => {
      ready = r;
    });
    const running = h.runtime.turn(h.say("long task"), async (t) => {
      await t.reply("working…");
      ready();
      await gate;
    });
    await replied;
    const error = await h.runtime.ledger
      .fork({ conversation: CONVERSATION, atSeq: 3, into: "forked" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForkUnavailableError);
    expect(error).toMatchObject({ reason: "open_turn", code: "HERALD_FORK_UNAVAILABLE" });
    expect(await h.ledger("forked")).toEqual([]);
    release();
    await running;
    await expect(
      h.runtime.ledger.fork({ conversation: CONVERSATION, atSeq: 3, into: "forked" }),
    ).resolves.toMatchObject({ throughSeq: 4 });
  });

  it("leaves out a concurrent turn still open at the cut", async () => {
    h = await turnHarness();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let started: () => void = () => {};
    const slowStarted = new Promise<void>((r) => {
      started = r;
    });
    const slow = h.runtime.turn(h.say("slow"), async (t) => {
      await t.activity({ role: "tool", name: "Crawl" });
      started();
      await gate;
    }); // seqs 1..3 so far
    await slowStarted;
    await h.runtime.turn(h.say("quick"), async (t) => {
      await t.reply("quick answer");
    }); // seqs 4..7
    const result = await h.runtime.ledger.fork({ conversation: CONVERSATION, atSeq: 6 });
    expect(result.throughSeq).toBe(7);
    expect(texts(await h.ledger(result.conversation))).toEqual([
      "user:quick",
      "assistant:quick answer",
    ]);
    release();
    await slow;
  });

  it("rejects an unknown seq, an event of no turn, and a target that already has events", async () => {
    h = await turnHarness();
    await twoTurns(h);
    await expect(
      h.runtime.ledger.fork({ conversation: CONVERSATION, atSeq: 99 }),
    ).rejects.toMatchObject({
      reason: "no_such_event",
    });
    const { conversation } = await h.runtime.ledger.fork({ conversation: CONVERSATION, atSeq: 2 });
    await expect(h.runtime.ledger.fork({ conversation, atSeq: 1 })).rejects.toMatchObject({
      reason: "outside_turn",
    });
    await expect(
      h.runtime.ledger.fork({ conversation: CONVERSATION, atSeq: 2, into: conversation }),
    ).rejects.toBeInstanceOf(ForkTargetNotEmptyError);
  });
});
