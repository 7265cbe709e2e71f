/**
 * The bot's `turn.reply` (DESIGN §6, §10; [H15] items 4 and 7): a streamed reply picks the
 * channel's native stream by default (`mode: "auto"`), with the sender as the stream's
 * recipient, and previews elsewhere; `placement` moves a reply into the message's thread.
 */
import type { ChannelMessage } from "@herald/core";
import { afterEach, expect, it } from "vitest";
import { type BenchAccount, benchAccount, benchGateway } from "../testing/fakeChannels.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function* words(...parts: string[]): AsyncIterable<string> {
  for (const part of parts) yield part;
}

async function answer(account: BenchAccount, reply: Parameters<typeof benchGateway>[1] = {}) {
  const bench = benchGateway([account], reply);
  close = bench.close;
  return bench;
}

it("streams a reply natively by default where the channel can, to the sender as recipient", async () => {
  const account = benchAccount("chat", "A", {
    live: { stream: { supports: (m: ChannelMessage) => m.recipient !== undefined } },
  });
  const bench = await answer(account);
  bench.gateway.onMessage(async (turn) => {
    await turn.reply(words("Hello ", "world"));
  });
  await bench.gateway.start();
  const done = bench.gateway.runtime.receive(
    { id: "1", chat: "g", from: "u-1", text: "hi", mention: true },
    { channel: "chat", accountId: "A" },
  );
  expect((await done.done).status).toBe("processed");
  expect(account.platform.visible().map((m) => [m.text, m.streaming])).toEqual([
    ["Hello world", false],
  ]);
  expect(account.platform.calls.some((c) => c.op === "stream_begin")).toBe(true);
  const intents = await bench.store.listIntents({ limit: 10 });
  expect(intents.map((i) => i.message.recipient)).toContainEqual({ userId: "u-1" });
});

it("edits a preview instead where the channel has no native stream", async () => {
  const account = benchAccount("chat", "A", { live: {} });
  const bench = await answer(account);
  bench.gateway.onMessage(async (turn) => {
    await turn.reply(words("Hello ", "world"));
  });
  await bench.gateway.start();
  const done = bench.gateway.runtime.receive(
    { id: "1", chat: "g", from: "u-1", text: "hi", mention: true },
    { channel: "chat", accountId: "A" },
  );
  expect((await done.done).status).toBe("processed");
  expect(account.platform.visible().map((m) => m.text)).toEqual(["Hello world"]);
  expect(account.platform.calls.some((c) => c.op.startsWith("stream"))).toBe(false);
});

it('replies inside the thread under the message with placement "thread", top-level without', async () => {
  const account = benchAccount("chat", "A", { threads: true });
  const bench = await answer(account);
  bench.gateway.onMessage(async (turn) => {
    await turn.reply("in the thread", { placement: "thread" });
    await turn.reply("at the top");
  });
  await bench.gateway.start();
  const done = bench.gateway.runtime.receive(
    { id: "7", chat: "g", from: "u-1", text: "hi", mention: true },
    { channel: "chat", accountId: "A" },
  );
  expect((await done.done).status).toBe("processed");
  expect(account.platform.visible().map((m) => [m.text, m.thread])).toEqual([
    ["in the thread", "thread-7"],
    ["at the top", undefined],
  ]);
});
