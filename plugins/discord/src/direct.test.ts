/**
 * Direct messages on Discord ([H23]) through discord.js's REST against the fake: Create DM
 * returns the same channel every time; an unknown user is a typed refusal; ephemeral replies
 * are not supported (core's NotSupportedError).
 */
import {
  DirectMessageUnavailableError,
  NotSupportedError,
} from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeDiscord.ts";
import { directChannelOf } from "./testing/fakeDirect.ts";

describe("direct messages (H23)", () => {
  it("H23 dm: POST /users/@me/channels opens the DM once and answers the same channel later; a message lands there", async () => {
    const b = await openBench();
    const open = () =>
      b.runtime.openDirect({ channel: "discord", accountId: "main", userId: ALICE.id });
    const first = await open();
    expect(first).toEqual({ kind: "direct", id: directChannelOf(b.fake, FAKE_BOT.id, ALICE.id) });
    expect(await open()).toEqual(first);
    await b.runtime.send(b.message(first, "hello Alice"), { idempotencyKey: "h23-discord-dm" });
    expect(b.fake.messages(first.id).map((m) => m.text)).toEqual(["hello Alice"]);
  });

  it("H23 dm: an unknown user (10013) is a DirectMessageUnavailableError", async () => {
    const b = await openBench();
    const refused = b.runtime.openDirect({
      channel: "discord",
      accountId: "main",
      userId: "600000000000009999",
    });
    await expect(refused).rejects.toBeInstanceOf(DirectMessageUnavailableError);
    await expect(refused).rejects.toMatchObject({ reason: "unknown_user" });
  });

  it("H23 ephemeral: not supported on Discord outside interactions (NotSupportedError, nothing sent)", async () => {
    const b = await openBench();
    const { target } = b.channel();
    await expect(
      b.runtime.sendEphemeral({
        channel: "discord",
        accountId: "main",
        target,
        userId: ALICE.id,
        message: { id: "eph", body: { markdown: "psst" } },
      }),
    ).rejects.toBeInstanceOf(NotSupportedError);
    expect(b.fake.requests.filter((r) => r.method === "POST")).toHaveLength(0);
  });
});
