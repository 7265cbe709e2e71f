import { DirectMessageUnavailableError } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it, onTestFinished } from "vitest";
import { ALICE, directChannelOf, ephemeralsOf, FAKE_BOT } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

describe("direct messages and ephemeral replies (H23)", () => {
  it("H23 dm: conversations.open opens the DM once and returns the same one on every later open (a restart, a replay)", async () => {
    const run = await openSlackRun(onTestFinished);
    const first = await run.runtime.openDirect({
      channel: "slack",
      accountId: "main",
      userId: ALICE.id,
    });
    const again = await run.runtime.openDirect({
      channel: "slack",
      accountId: "main",
      userId: ALICE.id,
    });
    expect(first).toEqual({
      kind: "direct",
      id: directChannelOf(run.fake, FAKE_BOT.userId, ALICE.id),
    });
    expect(again).toEqual(first);
    expect(first.id).toMatch(/^D/);
    // And a message sent there lands in the DM.
    await run.runtime.send(run.message("slack", first, "hello Alice"), {
      idempotencyKey: "h23-dm-send",
    });
    expect(run.fake.messages(first.id).map((m) => m.text)).toEqual(["hello Alice"]);
  });

  it("H23 dm: an unknown user is a DirectMessageUnavailableError with Slack's code as the reason", async () => {
    const run = await openSlackRun(onTestFinished);
    const refused = run.runtime.openDirect({
      channel: "slack",
      accountId: "main",
      userId: "UNOBODY01",
    });
    await expect(refused).rejects.toBeInstanceOf(DirectMessageUnavailableError);
    await expect(refused).rejects.toMatchObject({ reason: "user_not_found", userId: "UNOBODY01" });
  });

  it("H23 ephemeral: chat.postEphemeral shows the reply to one user only; nothing in the channel's history", async () => {
    const run = await openSlackRun(onTestFinished);
    const channel = run.fake.createChannel().id;
    const receipt = await run.runtime.sendEphemeral({
      channel: "slack",
      accountId: "main",
      target: { kind: "group", id: channel },
      userId: ALICE.id,
      message: { id: "eph-1", body: { markdown: "only *you* see this" } },
    });
    expect(ephemeralsOf(run.fake)).toEqual([
      expect.objectContaining({ channel, user: ALICE.id, text: "only _you_ see this" }),
    ]);
    expect(receipt.parts[0]?.platformMessageId).toBe(`${channel}:${ephemeralsOf(run.fake)[0]?.ts}`);
    expect(run.fake.messages(channel)).toEqual([]);
  });
});
