/**
 * CASES C10 (own echo, Slack) and the herald echo predicate: own messages and own edits are
 * dropped before dedupe and routing, whatever the mention setting; other bots follow
 * `allowBots`; a human's reply still counts.
 */
import { describe, expect, it } from "vitest";
import { gatewayFailureOrigin } from "../message/origin.ts";
import { textReceipt } from "../testing/fixtures.ts";
import { createFakeSlackAdapter, slackEnvelope } from "./testing/fakeSlack.ts";
import { receiveBench } from "./testing/harness.ts";
import type { ReceiveOutcome } from "./types.ts";

const slack = { channel: "slack", accountId: "T1" };
const reason = (o: ReceiveOutcome) => (o.status === "dropped" ? o.reason : o.status);

const ownPost = slackEnvelope({
  ts: "100.1",
  user: "U_BOT",
  bot_id: "B_BOT",
  text: "Here is the plan",
});
const ownEdit = slackEnvelope({
  subtype: "message_changed",
  ts: "100.2",
  event_ts: "100.2",
  message: { ts: "100.1", user: "U_BOT", bot_id: "B_BOT", text: "Here is the plan (edited)" },
});
const otherBot = slackEnvelope({
  ts: "100.3",
  user: "U_OTHER",
  bot_id: "B_OTHER",
  text: "<@U_BOT> ping",
});
const humanReply = slackEnvelope({
  ts: "100.4",
  thread_ts: "100.1",
  user: "U_HUMAN",
  text: "thanks!",
});
const otherBotMention = slackEnvelope({
  type: "app_mention",
  ts: "100.3",
  user: "U_OTHER",
  bot_id: "B_OTHER",
});

describe("C10 · own echo (Slack)", () => {
  for (const requireMention of [false, true]) {
    it(`drops its own post and its own edit before routing (requireMention: ${requireMention})`, async () => {
      const bench = receiveBench([createFakeSlackAdapter()], { requireMention, allowBots: true });
      const own = await bench.runtime.receive(ownPost, slack).done;
      const edit = await bench.runtime.receive(ownEdit, slack).done;
      expect([reason(own), reason(edit)]).toEqual(["self", "self"]);
      // Dropped before dedupe: nothing about them is in the store.
      expect(await bench.store.getDedupe({ ...slack, eventId: "C1:100.1" })).toBeUndefined();
      expect(
        await bench.store.getDedupe({ ...slack, eventId: "C1:100.1:edit:100.2" }),
      ).toBeUndefined();
      expect(bench.processed).toEqual([]);
    });
  }

  it("lets other bots through only with allowBots, and always counts a human's reply", async () => {
    const closed = receiveBench([createFakeSlackAdapter()]);
    expect(reason(await closed.runtime.receive(otherBot, slack).done)).toBe("bot_author");
    expect(reason(await closed.runtime.receive(humanReply, slack).done)).toBe("processed");

    const open = receiveBench([createFakeSlackAdapter()], {
      allowBots: true,
      requireMention: true,
    });
    expect(reason(await open.runtime.receive(otherBotMention, slack).done)).toBe("processed");
    expect(reason(await open.runtime.receive(humanReply, slack).done)).toBe("mention_required");
    expect(open.processed.map((p) => p.text)).toEqual(["hi"]);
  });

  it("compares self ids in canonical form when the platform's ids are case-insensitive", async () => {
    const bench = receiveBench([
      createFakeSlackAdapter({ botUserId: "u_bot", botId: " b_bot ", idsCaseInsensitive: true }),
    ]);
    expect(reason(await bench.runtime.receive(ownPost, slack).done)).toBe("self");
    const exact = receiveBench([createFakeSlackAdapter({ botUserId: "u_bot", botId: "b_bot" })], {
      allowBots: true,
    });
    expect(reason(await exact.runtime.receive(ownPost, slack).done)).toBe("processed");
  });
});

describe("herald-origin echoes", () => {
  const failureText = "Agent failed before reply";
  const tagged = slackEnvelope({
    ts: "200.1",
    user: "U_PEER",
    bot_id: "B_PEER",
    text: failureText,
    metadata: {
      event_type: "herald_origin",
      event_payload: gatewayFailureOrigin("agent_failed_before_reply"),
    },
  });

  it("drops a tagged gateway-failure echo from a bot in a room before allowBots", async () => {
    const bench = receiveBench([createFakeSlackAdapter()], { allowBots: true });
    expect(reason(await bench.runtime.receive(tagged, slack).done)).toBe("herald_echo");
  });

  it("follows allowBots for the same text without the tag (the drop is tag-based, never text-based)", async () => {
    const untagged = slackEnvelope({
      ts: "200.2",
      user: "U_PEER",
      bot_id: "B_PEER",
      text: failureText,
    });
    const bench = receiveBench([createFakeSlackAdapter()], { allowBots: true });
    expect(reason(await bench.runtime.receive(untagged, slack).done)).toBe("processed");
  });

  it("recognises an echo from the outbound registry when the platform carries no metadata", async () => {
    const bench = receiveBench([createFakeSlackAdapter()], { allowBots: true });
    const [enqueued] = await bench.store.enqueueIntents([
      {
        idempotencyKey: "failure-notice-1",
        message: {
          id: "out-1",
          channel: "slack",
          accountId: "T1",
          direction: "outbound",
          target: { kind: "channel", id: "C1" },
          body: { markdown: failureText },
          origin: gatewayFailureOrigin("agent_failed_before_reply"),
        },
      },
    ]);
    const id = enqueued?.intent.id ?? "";
    await bench.store.transitionIntents([{ id, from: "pending", to: "sending" }]);
    await bench.store.transitionIntents([
      { id, from: "sending", to: "committing", patch: { receipt: textReceipt(["C1:300.1"]) } },
    ]);
    await bench.store.transitionIntents([{ id, from: "committing", to: "sent" }]);
    // Posted through an incoming webhook: a bot id that is not in our self ids.
    const relayed = slackEnvelope({ ts: "300.1", bot_id: "B_WEBHOOK", text: failureText });
    expect(reason(await bench.runtime.receive(relayed, slack).done)).toBe("herald_echo");
  });
});
