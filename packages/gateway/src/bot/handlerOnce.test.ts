/**
 * [H14] item 7 — the handler runs once: when a reply is stored but its delivery outlasts the
 * wait (held as unknown, or behind a rate limit), the inbound message is complete and the turn
 * ends `completed`; recovery never runs the handler again.
 */
import { afterEach, expect, it } from "vitest";
import { benchAccount, benchGateway } from "../testing/fakeChannels.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

it("a reply still pending is not a failed turn: the handler is not run again", async () => {
  const a = benchAccount("chat", "A", { unknownSendPolicy: "hold" });
  const bench = benchGateway([a]);
  close = bench.close;
  let runs = 0;
  bench.gateway.onMessage(async (turn) => {
    runs += 1;
    await turn.reply(`answer to ${turn.text}`);
  });
  await bench.gateway.start();
  const rt = bench.gateway.runtime;
  a.platform.failNext({ type: "accept-then-drop" }, 1, "send"); // visible, answer lost: held
  const ticket = rt.receive(
    { id: "1", chat: "g", from: "u", text: "hi" },
    { channel: "chat", accountId: "A" },
  );
  expect((await ticket.ack).kind).toBe("accept");
  expect((await ticket.done).status).toBe("processed");

  const recovered = await rt.recoverInbound();
  expect(recovered).toMatchObject({ redispatched: 0 });
  expect(runs).toBe(1);
  expect(a.platform.visible().map((m) => m.text)).toEqual(["answer to hi"]);

  const ledger = await bench.store.readLedger({ conversation: "chat/chat/A/g" });
  const end = ledger.find((e) => e.type === "turn/end");
  expect(end?.data).toMatchObject({ outcome: "completed", reason: "delivery_pending" });
});
