/**
 * Reactions on Discord ([H23]) through the real discord.js REST and gateway client against the
 * fake: PUT / DELETE of the bot's own reaction (idempotent 204s, a replay never toggles it
 * off), and MESSAGE_REACTION_ADD / _REMOVE dispatches reaching the reaction handler once.
 */
import type { InboundReaction } from "@herald/plugin-sdk/channel-message";
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { discordEmoji } from "./reactions.ts";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeDiscord.ts";
import { discordReactionsOn, setDiscordReaction } from "./testing/fakeReactions.ts";

describe("reactions (H23)", () => {
  it("H23 react: PUT …/reactions/👀/@me puts it on; a reset after Discord stored it is replayed (204 again), still on", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    const { message } = b.fake.post({ channelId: channel.id, author: ALICE, text: "deploy?" });
    const id = message.json.id as string;
    const messageId = `${channel.id}:${id}`;
    b.fake.failNext({ kind: "reset_after_accept" }, { op: "react" });
    const receipt = await b.runtime.react({
      channel: "discord",
      accountId: "main",
      target,
      messageId,
      emoji: "👀",
      idempotencyKey: "h23-discord-react",
    });
    expect(receipt.parts[0]).toMatchObject({ kind: "reaction", replyToId: messageId });
    expect(discordReactionsOn(b.fake, id)).toEqual({ "👀": [FAKE_BOT.id] });
    const calls = b.fake.server.calls.filter((c) => c.op === "react");
    expect(calls.length).toBe(2);
    // Another add of the same emoji (a second operation): still on, once.
    await b.runtime.react({
      channel: "discord",
      accountId: "main",
      target,
      messageId,
      emoji: "👀",
      idempotencyKey: "h23-discord-react-again",
    });
    expect(discordReactionsOn(b.fake, id)).toEqual({ "👀": [FAKE_BOT.id] });
    await b.runtime.react({
      channel: "discord",
      accountId: "main",
      target,
      messageId,
      emoji: "👀",
      remove: true,
      idempotencyKey: "h23-discord-unreact",
    });
    expect(discordReactionsOn(b.fake, id)).toEqual({});
  });

  it("H23 react: an unknown message is a typed failure (10008), not success", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    await expect(
      b.runtime.react({
        channel: "discord",
        accountId: "main",
        target,
        messageId: `${channel.id}:123456789012345678`,
        emoji: "👀",
        idempotencyKey: "h23-discord-missing",
      }),
    ).rejects.toThrow(/Unknown Message|10008/);
  });

  it("H23 inbound: MESSAGE_REACTION_ADD / _REMOVE reach the reaction handler once each; a replayed dispatch is deduped", async () => {
    const b = await openBench();
    const seen: InboundReaction[] = [];
    b.runtime.onReaction((r) => {
      seen.push(r);
    });
    const { channel } = b.channel();
    const { message } = b.fake.post({ channelId: channel.id, author: FAKE_BOT, text: "ship it" });
    const id = message.json.id as string;
    await b.startReceiver();
    const d = {
      user_id: ALICE.id,
      channel_id: channel.id,
      message_id: id,
      guild_id: b.fake.guildId,
      emoji: { id: null, name: "🎉" },
    };
    setDiscordReaction(b.fake, id, "🎉", ALICE.id, false);
    b.fake.gateway.dispatch("MESSAGE_REACTION_ADD", d, channel.id);
    // The bot's own reaction echo is not news.
    b.fake.gateway.dispatch(
      "MESSAGE_REACTION_ADD",
      { ...d, user_id: FAKE_BOT.id, emoji: { id: null, name: "👀" } },
      channel.id,
    );
    b.fake.gateway.dispatch("MESSAGE_REACTION_REMOVE", d, channel.id);
    await eventually(
      () => seen.length,
      (n) => n === 2,
      { what: "two reactions handled" },
    );
    expect(seen[0]).toMatchObject({
      kind: "reaction",
      channel: "discord",
      target: { kind: "group", id: channel.id },
      sender: { id: ALICE.id },
      messageId: `${channel.id}:${id}`,
      emoji: "🎉",
      removed: false,
    });
    expect(seen[1]).toMatchObject({ emoji: "🎉", removed: true });
    // The same dispatch again (a RESUME replay carries the same session and sequence).
    const first = seen[0]?.raw as { t: string; s: number; d: unknown; session?: string };
    const outcome = await b.runtime.receive(first, { channel: "discord", accountId: "main" }).done;
    expect(outcome.status).toBe("duplicate");
    expect(seen).toHaveLength(2);
  });

  it("custom emoji: <:name:id> becomes name:id", () => {
    expect(discordEmoji("<:party:123456>")).toBe("party:123456");
    expect(discordEmoji("👀")).toBe("👀");
  });
});
