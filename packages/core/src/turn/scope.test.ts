import { afterEach, describe, expect, it } from "vitest";
import { currentTurn, currentTurnId } from "../context/scope.ts";
import type { ChannelMessage } from "../message/message.ts";
import { type TurnHarness, turnHarness } from "./testing/harness.ts";
import { TURN_EVENT, type TurnMessage } from "./types.ts";

let h: TurnHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const out = (text: string, chat = "room-1"): ChannelMessage => ({
  id: `out-${text}`,
  channel: "qa",
  accountId: "bot-1",
  direction: "outbound",
  target: { kind: "group", id: chat },
  body: { markdown: text },
});

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("turn scope", () => {
  it("stamps the root turnId on every message and activity entry of a 2-level nested subagent tree, late completions included", async () => {
    h = await turnHarness();
    const { runtime } = h;
    const inbound = h.say("plan the trip");
    const depths: Array<[string, number, string | undefined]> = [];
    const seen = (label: string) => {
      const t = currentTurn();
      depths.push([label, t?.depth ?? -1, t?.subagentId]);
    };

    let rootId = "";
    let conversation = "";
    await runtime.turn(inbound, async (turn) => {
      rootId = turn.turnId;
      conversation = turn.conversation;
      seen("parent");
      await runtime.send(out("parent says"));
      await turn.activity({ role: "tool", name: "Read", input: "plan.md" });
      await runtime.subagent("child", async () => {
        seen("child");
        await runtime.enqueue(out("child queues"));
        await runtime.activity({ role: "tool", name: "Grep", input: "flights" });
        await runtime.subagent("grandchild", async () => {
          seen("grandchild");
          await runtime.withSendContext(out("grandchild renders"), async (ctx) =>
            ctx.send(await ctx.render()),
          );
          const live = await runtime.live(
            { channel: "qa", accountId: "bot-1", target: { kind: "group", id: "room-1" } },
            { mode: "block", idempotencyKey: "grandchild-live" },
          );
          await live.finalize("grandchild streams");
          // A subagent handed its own inbound message joins the root turn.
          await runtime.turn(h?.say("sub-task") ?? inbound, async (nested) => {
            seen("nested turn");
            expect(nested.turnId).toBe(rootId);
            await runtime.activity({ role: "command", command: "/book" });
          });
          // Completes after every handler above returned: a timer, then a send and a node.
          turn.spawn(async () => {
            await tick(20);
            seen("late");
            await runtime.send(out("late completion"));
            await runtime.activity({ role: "tool", name: "Notify", content: "sent" });
          });
        });
      });
      seen("parent again");
    });

    // Messages: every intent of the turn carries the root turnId.
    const intents = await h.store.listIntents({ limit: 100 });
    const texts = intents.filter((i) => !i.liveState).map((i) => i.message.body?.markdown);
    expect(texts.sort()).toEqual(
      [
        "child queues",
        "grandchild renders",
        "grandchild streams",
        "late completion",
        "parent says",
      ].sort(),
    );
    expect(intents.some((i) => i.liveState)).toBe(true); // the live session's own intent
    for (const intent of intents) expect(intent.turnId, intent.idempotencyKey).toBe(rootId);
    expect(h.botMessages().map((m) => m.text)).toContain("late completion");

    // Activity entries: every transcript node carries the root turnId; subagents keep their ids.
    expect(conversation).toBe("chat/qa/bot-1/room-1");
    const events = await h.ledger(conversation);
    const nodes = events.filter((e) => e.type === TURN_EVENT.message);
    for (const e of nodes) {
      expect(e.turnId).toBe(rootId);
      expect((e.data as TurnMessage).turnId).toBe(rootId);
    }
    const summary = nodes.map((e) => {
      const m = e.data as TurnMessage;
      return `${m.role}:${m.subagentId ?? "-"}`;
    });
    expect(summary).toEqual([
      "user:-",
      "tool:-",
      "subagent:child#1",
      "tool:child#1",
      "subagent:grandchild#2",
      "command:grandchild#2",
      "subagent:grandchild#2",
      "subagent:child#1",
      "tool:grandchild#2",
    ]);
    // The turn ended after the late completion: turn/end is the last event.
    expect(events.at(-1)).toMatchObject({ type: TURN_EVENT.end, turnId: rootId });
    expect(depths).toEqual([
      ["parent", 0, undefined],
      ["child", 1, "child#1"],
      ["grandchild", 2, "grandchild#2"],
      ["nested turn", 3, "grandchild#2"],
      ["parent again", 0, undefined],
      ["late", 2, "grandchild#2"],
    ]);
    expect(currentTurnId()).toBeUndefined();
  });

  it("lets an explicit turnId override the scope's", async () => {
    h = await turnHarness();
    const { runtime } = h;
    await runtime.turn(h.say("hi"), async () => {
      await runtime.send(out("explicit"), { turnId: "other-turn" });
      await runtime.send(out("scoped"));
    });
    const intents = await h.store.listIntents();
    const byText = Object.fromEntries(intents.map((i) => [i.message.body?.markdown, i.turnId]));
    expect(byText.explicit).toBe("other-turn");
    expect(byText.scoped).not.toBe("other-turn");
    expect(byText.scoped).toEqual(expect.any(String));
  });

  it("stamps nothing outside a turn", async () => {
    h = await turnHarness();
    await h.runtime.send(out("no turn"));
    const [intent] = await h.store.listIntents();
    expect(intent?.turnId).toBeUndefined();
    const message = await h.runtime.activity({ role: "tool", name: "Read" });
    expect(message.turnId).toBeUndefined();
  });
});
