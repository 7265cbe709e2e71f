/**
 * [H14] item 12 — `allowBots` and `requireMention` per channel and per account: the most
 * specific setting wins, and without any the defaults are today's (`false`, `false`).
 */
import { describe, expect, it } from "vitest";
import { InboundPolicies } from "./policy.ts";
import { createFakeTelegramAdapter, teleUpdate } from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";

describe("inbound policy per channel and account", () => {
  it("resolves account → channel → runtime-wide → default", () => {
    const p = new InboundPolicies({ allowBots: true }, [
      { channel: "telegram", requireMention: true },
      { channel: "telegram", accountId: "support", allowBots: false },
    ]);
    expect(p.resolve("telegram", "support")).toEqual({ allowBots: false, requireMention: true });
    expect(p.resolve("telegram", "sales")).toEqual({ allowBots: true, requireMention: true });
    expect(p.resolve("slack", "T1")).toEqual({ allowBots: true, requireMention: false });
    expect(new InboundPolicies({}).resolve("x", undefined)).toEqual({
      allowBots: false,
      requireMention: false,
    });
    expect(() => p.set({ channel: "" })).toThrow(/channel must be a non-empty string/);
  });

  it("drops or dispatches by the policy of the account a message arrived on", async () => {
    const bench = receiveBench([createFakeTelegramAdapter()], {
      policies: [
        { channel: "telegram", requireMention: true },
        { channel: "telegram", accountId: "chatty", requireMention: false, allowBots: true },
      ],
    });
    const group = -100;
    const on = (accountId: string, id: number, o: { isBot?: boolean; fromId?: number } = {}) =>
      bench.runtime.receive(teleUpdate(id, { chatId: group, text: "no mention", ...o }), {
        channel: "telegram",
        accountId,
      }).done;
    expect(await on("quiet", 1)).toMatchObject({ status: "dropped", reason: "mention_required" });
    expect(await on("chatty", 2)).toMatchObject({ status: "processed" });
    expect(await on("quiet", 3, { isBot: true, fromId: 7 })).toMatchObject({
      status: "dropped",
      reason: "bot_author",
    });
    expect(await on("chatty", 4, { isBot: true, fromId: 7 })).toMatchObject({
      status: "processed",
    });

    // Changed at run time through the API.
    bench.runtime.setPolicy({ channel: "telegram", accountId: "quiet", requireMention: false });
    expect(await on("quiet", 5)).toMatchObject({ status: "processed" });
  });
});
