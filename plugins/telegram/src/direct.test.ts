/**
 * Direct messages on Telegram ([H23]) through grammY against the fake: the user's id is the
 * chat once they started the bot; before that a typed refusal (`user_never_started_bot`);
 * ephemeral replies and history are not supported (core's NotSupportedError).
 */
import {
  DirectMessageUnavailableError,
  NotSupportedError,
} from "@herald/plugin-sdk/channel-message";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE } from "./testing/FakeTelegram.ts";

describe("direct messages (H23)", () => {
  it("H23 dm: a user who started the bot: the DM is their id, the same every time, and a message lands there", async () => {
    const b = await openBench();
    const chat = b.fake.createChat({ type: "private", user: ALICE });
    const open = () =>
      b.runtime.openDirect({ channel: "telegram", accountId: "main", userId: String(ALICE.id) });
    const first = await open();
    expect(first).toEqual({ kind: "direct", id: String(chat.id) });
    expect(await open()).toEqual(first);
    await b.runtime.send(b.message(first, "hello Alice"), { idempotencyKey: "h23-telegram-dm" });
    expect(b.fake.messages(chat.id).map((m) => m.text)).toEqual(["hello Alice"]);
  });

  it("H23 dm: a user who never started the bot is a DirectMessageUnavailableError (user_never_started_bot)", async () => {
    const b = await openBench();
    const refused = b.runtime.openDirect({
      channel: "telegram",
      accountId: "main",
      userId: "777000123",
    });
    await expect(refused).rejects.toBeInstanceOf(DirectMessageUnavailableError);
    await expect(refused).rejects.toMatchObject({ reason: "user_never_started_bot" });
  });

  it("H23 ephemeral/history: not supported on Telegram (NotSupportedError, nothing sent)", async () => {
    const b = await openBench();
    const { target } = b.dm();
    await expect(
      b.runtime.sendEphemeral({
        channel: "telegram",
        accountId: "main",
        target,
        userId: String(ALICE.id),
        message: { id: "eph", body: { markdown: "psst" } },
      }),
    ).rejects.toBeInstanceOf(NotSupportedError);
    await expect(
      b.runtime.history({ channel: "telegram", accountId: "main", target, limit: 10 }),
    ).rejects.toBeInstanceOf(NotSupportedError);
    expect(b.fake.server.calls.filter((c) => c.op === "send")).toHaveLength(0);
  });
});
