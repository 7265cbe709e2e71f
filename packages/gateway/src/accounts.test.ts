/**
 * [H14] item 5 at the gateway: two configured accounts of one channel keep their own adapter —
 * replies leave through the account the message came in on, and each account drops only its
 * own echoes.
 */
import { afterEach, expect, it } from "vitest";
import { benchAccount, benchGateway } from "./testing/fakeChannels.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

it("a reply leaves through the account that received the message", async () => {
  const a = benchAccount("chat", "A");
  const b = benchAccount("chat", "B");
  const bench = benchGateway([a, b], { receive: { allowBots: true } });
  close = bench.close;
  bench.gateway.onMessage(async (turn) => {
    await turn.reply(`echo ${turn.text}`);
  });
  await bench.gateway.start();
  const rt = bench.gateway.runtime;
  const toA = rt.receive(
    { id: "1", chat: "g", from: "u", text: "hi A" },
    { channel: "chat", accountId: "A" },
  );
  const toB = rt.receive(
    { id: "2", chat: "g", from: "u", text: "hi B" },
    { channel: "chat", accountId: "B" },
  );
  expect((await toA.done).status).toBe("processed");
  expect((await toB.done).status).toBe("processed");
  expect(a.platform.visible().map((m) => m.text)).toEqual(["echo hi A"]);
  expect(b.platform.visible().map((m) => m.text)).toEqual(["echo hi B"]);

  // bot-B's message seen by account A is another bot talking, not A's own echo.
  const own = rt.receive(
    { id: "3", chat: "g", from: "bot-A", isBot: true, text: "x" },
    { channel: "chat", accountId: "A" },
  );
  const other = rt.receive(
    { id: "4", chat: "g", from: "bot-B", isBot: true, text: "y" },
    { channel: "chat", accountId: "A" },
  );
  expect((await own.done).status).toBe("dropped");
  expect((await other.done).status).toBe("processed");
});
