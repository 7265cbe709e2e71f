/** History on Discord ([H23]): Get Channel Messages through discord.js's REST against the fake. */
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeDiscord.ts";

describe("history (H23)", () => {
  it("H23 history: GET /channels/{c}/messages, oldest first, normalized like inbound; the bot's own are outbound; before pages back", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    b.fake.post({ channelId: channel.id, author: ALICE, text: "one" });
    b.fake.post({
      channelId: channel.id,
      author: { id: FAKE_BOT.id, username: FAKE_BOT.username, bot: true },
      text: "two",
    });
    const { message: three } = b.fake.post({ channelId: channel.id, author: ALICE, text: "three" });
    const all = await b.runtime.history({
      channel: "discord",
      accountId: "main",
      target,
      limit: 10,
    });
    expect(all.map((m) => m.body?.markdown)).toEqual(["one", "two", "three"]);
    expect(all[0]).toMatchObject({
      channel: "discord",
      direction: "inbound",
      sender: { id: ALICE.id },
    });
    expect(all[1]?.direction).toBe("outbound");
    expect(all[2]?.platformMessageId).toBe(`${channel.id}:${three.json.id}`);
    const older = await b.runtime.history({
      channel: "discord",
      accountId: "main",
      target,
      limit: 10,
      before: all[2]?.platformMessageId as string,
    });
    expect(older.map((m) => m.body?.markdown)).toEqual(["one", "two"]);
    const last = await b.runtime.history({
      channel: "discord",
      accountId: "main",
      target,
      limit: 1,
    });
    expect(last.map((m) => m.body?.markdown)).toEqual(["three"]);
  });
});
