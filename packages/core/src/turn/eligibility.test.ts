import { afterEach, describe, expect, it } from "vitest";
import { branchEligibility, projectSnapshot } from "./snapshot.ts";
import { type TurnHarness, turnHarness } from "./testing/harness.ts";
import type { ConversationSnapshot, Turn, TurnMessage } from "./types.ts";

let h: TurnHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CONVERSATION = "chat/qa/bot-1/room-1";

/** Runs one turn whose handler is `fn`; returns its id. */
async function turn(text: string, fn: (t: Turn) => Promise<void> = async () => {}) {
  let id = "";
  await h?.runtime
    .turn(h.say(text), async (t) => {
      id = t.turnId;
      await fn(t);
    })
    .catch(() => {});
  return id;
}

async function snapshot(window = {}): Promise<ConversationSnapshot> {
  if (!h) throw new Error("no harness");
  return h.runtime.ledger.snapshot({ conversation: CONVERSATION, window });
}

/** The eligible nodes as `role:text`. */
function eligible(s: ConversationSnapshot): string[] {
  const bySeq = new Map(s.nodes.map((n) => [n.seq, n.message]));
  return branchEligibility(s).map((t) => {
    const m = bySeq.get(t.seq) as TurnMessage & { text?: string };
    return `${m.role}:${m.text ?? ""}`;
  });
}

describe("branch eligibility", () => {
  it("offers branch on the assistant tail of a completed turn (and on nothing earlier)", async () => {
    h = await turnHarness();
    await turn("what is in app.ts?", async (t) => {
      await t.activity({ role: "tool", name: "Read", input: "src/app.ts", content: "…" });
      await t.reply("It exports the server.");
    });
    const s = await snapshot();
    expect(eligible(s)).toEqual(["assistant:It exports the server."]);
    const [target] = branchEligibility(s);
    expect(target?.endSeq).toBe(s.turnEnds[0]?.seq);
  });

  it("offers branch on the user message when it is the turn's only node", async () => {
    h = await turnHarness();
    await turn("just noting this");
    expect(eligible(await snapshot())).toEqual(["user:just noting this"]);
  });

  it("takes it away when a later tool result follows the assistant text in the same turn", async () => {
    h = await turnHarness();
    await turn("fix it", async (t) => {
      await t.reply("Let me check the logs.");
      await t.activity({ role: "tool", name: "Bash", input: "tail app.log", content: "ok" });
    });
    expect(eligible(await snapshot())).toEqual([]);
  });

  it("takes it away for a reasoning-only interruption, but keeps an interrupted answer's text", async () => {
    h = await turnHarness();
    await turn("think hard", async (t) => {
      await t.reply("Here is a first idea.");
      await t.activity({ role: "reasoning", text: "", interrupted: true });
      t.abort("user pressed stop");
    });
    await turn("answer quickly", async (t) => {
      await t.activity({ role: "assistant", text: "The short answ", interrupted: true });
      t.abort("user pressed stop");
    });
    const s = await snapshot();
    expect(s.turnEnds.map((e) => e.outcome)).toEqual(["aborted", "aborted"]);
    expect(eligible(s)).toEqual(["assistant:The short answ"]);
  });

  it("takes it away when the turn ended with an error", async () => {
    h = await turnHarness();
    await turn("do the thing", async (t) => {
      await t.reply("Working on it.");
      throw new Error("provider timeout");
    });
    expect(eligible(await snapshot())).toEqual([]);
  });

  it("gives an open turn none, while earlier completed turns keep theirs", async () => {
    h = await turnHarness();
    await turn("first", async (t) => {
      await t.reply("first answer");
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let replied: () => void = () => {};
    const repliedOnce = new Promise<void>((r) => {
      replied = r;
    });
    const running = turn("second", async (t) => {
      await t.reply("second answer so far");
      replied();
      await gate;
    });
    await repliedOnce;
    const s = await snapshot();
    expect(s.turnEnds).toHaveLength(1);
    expect(eligible(s)).toEqual(["assistant:first answer"]);
    release();
    await running;
    expect(eligible(await snapshot())).toEqual([
      "assistant:first answer",
      "assistant:second answer so far",
    ]);
  });

  it("handles a paged window that cuts a turn in half", async () => {
    h = await turnHarness();
    await turn("one", async (t) => {
      await t.reply("answer one");
    }); // seqs 1..4
    await turn("two", async (t) => {
      await t.activity({ role: "tool", name: "Read" });
      await t.reply("answer two");
    }); // seqs 5..9: start, user, tool, assistant, end
    const whole = await snapshot();
    expect(eligible(whole)).toEqual(["assistant:answer one", "assistant:answer two"]);

    // Page 1 ends inside turn two: it looks open there, so it offers nothing.
    const page1 = await snapshot({ fromSeq: 1, toSeq: 7 });
    expect(page1.toSeq).toBe(7);
    expect(eligible(page1)).toEqual(["assistant:answer one"]);
    // Page 2 starts inside turn two (no turn/start) but holds its tail and its turn/end.
    const page2 = await snapshot({ fromSeq: 7, toSeq: 9 });
    expect(page2.turnStarts).toEqual([]);
    expect(eligible(page2)).toEqual(["assistant:answer two"]);
    // A window that starts after the tail sees the end but not the tail: nothing to offer.
    const page3 = await snapshot({ fromSeq: 9, toSeq: 9 });
    expect(page3.turnEnds).toHaveLength(1);
    expect(eligible(page3)).toEqual([]);
  });

  it("ignores whitespace-only assistant text and a second turn/end of the same turn", async () => {
    h = await turnHarness();
    const id = await turn("hm", async (t) => {
      await t.activity({ role: "assistant", text: "   " });
    });
    await h.store.appendLedger([
      {
        conversation: CONVERSATION,
        type: "turn/end",
        turnId: id,
        data: { outcome: "interrupted", reason: "stale" },
      },
    ]);
    const s = await snapshot();
    expect(s.turnEnds).toEqual([expect.objectContaining({ turnId: id, outcome: "completed" })]);
    expect(eligible(s)).toEqual([]);
  });

  it("is pure and reference-stable for one snapshot", () => {
    const s = projectSnapshot("c", 1, [
      {
        conversation: "c",
        seq: 1,
        type: "turn/start",
        turnId: "t",
        at: 1,
        data: { rootMessageId: "m" },
      },
      {
        conversation: "c",
        seq: 2,
        type: "turn/message",
        turnId: "t",
        at: 1,
        data: { id: "u", at: 1, role: "user", text: "hi", turnId: "t" },
      },
      {
        conversation: "c",
        seq: 3,
        type: "turn/end",
        turnId: "t",
        at: 2,
        data: { outcome: "completed" },
      },
    ]);
    const first = branchEligibility(s);
    expect(branchEligibility(s)).toBe(first);
    expect(first).toEqual([{ seq: 2, turnId: "t", endSeq: 3 }]);
    expect(Object.isFrozen(first)).toBe(true);
  });
});
