/**
 * [H14] item 12 at the gateway: `receive` in the config (runtime-wide and per channel id) and
 * `channels[i].receive` (per account) set `allowBots` / `requireMention`; defaults unchanged.
 */
import { afterEach, expect, it } from "vitest";
import { benchAccount, benchGateway } from "../testing/fakeChannels.ts";
import { parseConfig } from "./load.ts";
import { receivePolicyOf } from "./schema.ts";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const room = (id: string, o: { from?: string; isBot?: boolean } = {}) => ({
  id,
  chat: "room",
  from: o.from ?? "user",
  text: "no mention here",
  ...(o.isBot ? { isBot: true } : {}),
});

it("per-channel and per-account policy from the config", async () => {
  const config = parseConfig({
    receive: { allowBots: true, channels: { chat: { requireMention: true } } },
    channels: [
      { plugin: "x", account: "A" },
      { plugin: "x", account: "B", receive: { requireMention: false, allowBots: false } },
    ],
  });
  const a = benchAccount("chat", "A");
  const b = benchAccount("chat", "B");
  b.channel.receive = config.channels[1]?.receive ?? {};
  const bench = benchGateway([a, b], { receive: receivePolicyOf(config) });
  close = bench.close;
  bench.gateway.onMessage(async () => {});
  await bench.gateway.start();
  const rt = bench.gateway.runtime;
  const on = (accountId: string, raw: unknown) =>
    rt.receive(raw, { channel: "chat", accountId }).done;
  expect(await on("A", room("1"))).toMatchObject({ status: "dropped", reason: "mention_required" });
  expect(await on("B", room("2"))).toMatchObject({ status: "processed" });
  expect(await on("B", room("3", { from: "other-bot", isBot: true }))).toMatchObject({
    status: "dropped",
    reason: "bot_author",
  });
});

it("defaults stay today's: bots dropped, no mention needed", async () => {
  const config = parseConfig({});
  expect(receivePolicyOf(config)).toEqual({ policies: [] });
  expect(config.typing).toBe(false); // no typing indicator unless asked for
  const a = benchAccount("chat", "A");
  const bench = benchGateway([a], { receive: receivePolicyOf(config) });
  close = bench.close;
  bench.gateway.onMessage(async () => {});
  await bench.gateway.start();
  const rt = bench.gateway.runtime;
  expect(await rt.receive(room("1"), { channel: "chat", accountId: "A" }).done).toMatchObject({
    status: "processed",
  });
  expect(
    await rt.receive(room("2", { from: "b", isBot: true }), { channel: "chat", accountId: "A" })
      .done,
  ).toMatchObject({ status: "dropped", reason: "bot_author" });
});

it("a bad policy value names its field", () => {
  expect(() => parseConfig({ receive: { channels: { chat: { requireMention: "yes" } } } })).toThrow(
    /receive\.channels\.chat\.requireMention/,
  );
});
