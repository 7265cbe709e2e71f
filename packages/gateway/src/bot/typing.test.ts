/**
 * [H14] item 8 in the bot API: `typing: true` shows the indicator while the handler works,
 * `turn.typing()` on demand; both stop before the reply is sent and when the turn ends.
 */
import { afterEach, expect, it } from "vitest";
import { benchAccount, benchGateway } from "../testing/fakeChannels.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const update = (id: string) => ({ id, chat: "dm", from: "u", text: "question", group: false });

it("typing is shown while the handler works and stopped before the reply", async () => {
  const a = benchAccount("chat", "A", { live: { typing: true } });
  const bench = benchGateway([a], { typing: true });
  close = bench.close;
  let release: () => void = () => {};
  const working = new Promise<void>((r) => {
    release = r;
  });
  let typingWhileWorking = false;
  bench.gateway.onMessage(async (turn) => {
    await new Promise((r) => setTimeout(r, 10));
    typingWhileWorking = a.platform.isTyping("dm");
    await working; // the model thinks
    await turn.reply("the answer");
  });
  await bench.gateway.start();
  const ticket = bench.gateway.runtime.receive(update("1"), { channel: "chat", accountId: "A" });
  await new Promise((r) => setTimeout(r, 30));
  release();
  expect((await ticket.done).status).toBe("processed");
  expect(typingWhileWorking).toBe(true);
  const calls = a.platform.calls;
  const sentAt = calls.findIndex((c) => c.op === "send");
  expect(calls.slice(sentAt).filter((c) => c.op === "typing" && c.on === true)).toEqual([]);
  expect(a.platform.isTyping("dm")).toBe(false);
});

it("turn.typing() is stopped when the handler fails", async () => {
  const a = benchAccount("chat", "A", { live: { typing: true } });
  const bench = benchGateway([a]);
  close = bench.close;
  bench.gateway.onMessage(async (turn) => {
    turn.typing();
    await new Promise((r) => setTimeout(r, 10));
    throw new Error("tool failed");
  });
  await bench.gateway.start();
  const ticket = bench.gateway.runtime.receive(update("2"), { channel: "chat", accountId: "A" });
  expect((await ticket.done).status).toBe("failed");
  expect(a.platform.calls.some((c) => c.op === "typing" && c.on === true)).toBe(true);
  expect(a.platform.isTyping("dm")).toBe(false);
});
