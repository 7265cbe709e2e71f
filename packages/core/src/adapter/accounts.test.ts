/**
 * [H14] item 5 — two accounts of one channel never collapse into one adapter: each account's
 * messages leave through its own client (here: its own fake platform, standing in for its
 * credentials), live sessions use it, and inbound echo checks use that account's own ids.
 */
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../delivery/testing/harness.ts";
import { createFakeTelegramAdapter, teleUpdate } from "../receive/testing/fakeTelegram.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";
import { AdapterRegistry, UnknownAccountError } from "./registry.ts";
import type { ChannelMessageAdapter } from "./types.ts";

/** One bot: its own platform connection and its own user id. */
function bot(platform: FakePlatform, botId: number): ChannelMessageAdapter {
  const receive = createFakeTelegramAdapter({ botId }).receive;
  if (!receive) throw new Error("the fake telegram adapter receives");
  return {
    ...createFakeAdapter({ id: "telegram", transport: inProcessTransport(platform) }),
    receive,
  };
}

let runtime: MessageRuntime | undefined;
let store: SqliteStateStore | undefined;
afterEach(async () => {
  await runtime?.stop(1_000);
  await store?.close();
  runtime = undefined;
  store = undefined;
});

function twoBots() {
  const a = new FakePlatform();
  const b = new FakePlatform();
  store = new SqliteStateStore({ path: ":memory:" });
  const handled: string[] = [];
  runtime = createMessageRuntime({
    store,
    adapters: [
      { accountId: "A", adapter: bot(a, 111) },
      { accountId: "B", adapter: bot(b, 222) },
    ],
    delivery: { pollIntervalMs: 5 },
    receive: {
      allowBots: true,
      handler: async (ctx) => {
        handled.push(`${ctx.input.accountId}:${ctx.input.sender?.id}`);
      },
    },
  });
  return { a, b, runtime, handled };
}

describe("accounts: adapters are keyed by (channel, accountId)", () => {
  it("send, enqueue (worker) and live leave through the account's own adapter", async () => {
    const { a, b, runtime } = twoBots();
    await runtime.start();
    await runtime.send(outboundMessage("from A", { channel: "telegram", accountId: "A" }));
    await runtime.send(outboundMessage("from B", { channel: "telegram", accountId: "B" }));
    await runtime.enqueue(outboundMessage("queued A", { channel: "telegram", accountId: "A" }));
    await eventually(
      () => a.visible().length,
      (n) => n === 2,
    );
    const session = await runtime.live(
      { channel: "telegram", accountId: "B", target: { kind: "group", id: "chat-1" } },
      { mode: "block" },
    );
    await session.finalize("live B");
    expect(a.visible().map((m) => m.text)).toEqual(["from A", "queued A"]);
    expect(b.visible().map((m) => m.text)).toEqual(["from B", "live B"]);
  });

  it("each account drops its own echoes, not the other bot's messages", async () => {
    const { runtime, handled } = twoBots();
    const chat = -100;
    const on = (accountId: string, updateId: number, fromId: number) =>
      runtime.receive(teleUpdate(updateId, { chatId: chat, fromId, isBot: true }), {
        channel: "telegram",
        accountId,
      }).done;
    expect((await on("A", 1, 111)).status).toBe("dropped"); // A's own echo
    expect((await on("A", 2, 222)).status).toBe("processed"); // bot B talking, seen by A
    expect((await on("B", 3, 222)).status).toBe("dropped"); // B's own echo
    expect((await on("B", 4, 111)).status).toBe("processed");
    expect(handled).toEqual(["A:222", "B:111"]);
  });

  it("an account with no adapter is a typed error, never another account's client", async () => {
    const { a, b, runtime } = twoBots();
    await runtime.start();
    await expect(
      runtime.send(outboundMessage("who?", { channel: "telegram", accountId: "C" })),
    ).rejects.toBeInstanceOf(UnknownAccountError);
    expect(a.calls.length + b.calls.length).toBe(0);
  });

  it("addAdapter registers an account after creation (async per-account factories)", async () => {
    const { runtime } = twoBots();
    await runtime.start();
    const c = new FakePlatform();
    runtime.addAdapter(bot(c, 333), "C");
    await runtime.send(outboundMessage("from C", { channel: "telegram", accountId: "C" }));
    expect(c.visible().map((m) => m.text)).toEqual(["from C"]);
    expect(runtime.removeAdapter("telegram", "C")).toBe(true);
    expect(runtime.adapter("telegram", "C")).toBeUndefined();
  });
});

describe("AdapterRegistry lookup rule", () => {
  const p = new FakePlatform();
  const one = createFakeAdapter({ id: "qa", transport: inProcessTransport(p) });
  const two = createFakeAdapter({ id: "qa", transport: inProcessTransport(p) });
  it("an account-less adapter serves every account; a bound one only its own", () => {
    const shared = new AdapterRegistry([one]);
    expect(shared.find("qa", "x")).toBe(one);
    expect(shared.find("qa")).toBe(one);
    const bound = new AdapterRegistry([{ accountId: "a", adapter: one }]);
    expect(bound.find("qa", "a")).toBe(one);
    expect(bound.find("qa")).toBe(one); // the only account
    expect(bound.find("qa", "b")).toBeUndefined();
  });
  it("no account named and several registered is ambiguous", () => {
    const r = new AdapterRegistry([
      { accountId: "a", adapter: one },
      { accountId: "b", adapter: two },
    ]);
    expect(() => r.get("qa")).toThrow(/several accounts \(a, b\)/);
    expect(() => r.get("nope")).toThrow(/no channel adapter "nope"/);
    expect(r.accounts("qa")).toEqual(["a", "b"]);
  });
});
