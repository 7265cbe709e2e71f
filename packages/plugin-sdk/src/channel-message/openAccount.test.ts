import { silentLogger } from "@herald/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChannelAccountDeps, ChannelReceiver } from "./account.ts";
import { openChannelAccount } from "./openAccount.ts";
import { defineChannelMessageAdapter, defineChannelPlugin } from "./plugin.ts";

const adapter = defineChannelMessageAdapter({
  id: "demo",
  capabilities: { text: { maxLength: 10 } },
  render: {
    render: (_m, ctx) => ({
      units: [],
      atomicity: "all_or_retry_remaining",
      idempotencyKey: ctx.idempotencyKey,
    }),
  },
  send: {
    send: async (_ctx, unit) => ({ platformMessageId: "x", kind: unit.kind, index: unit.index }),
    classifyError: () => ({ kind: "unknown", evidence: "maybe_sent", message: "?" }),
  },
});
const deps = {
  accountId: "main",
  logger: silentLogger,
  clock: () => 0,
  secret: () => "s",
  sink: {} as ChannelAccountDeps["sink"],
  signal: new AbortController().signal,
} satisfies ChannelAccountDeps;
const receiver: ChannelReceiver = { start: async () => {} };

describe("openChannelAccount", () => {
  it("opens with createAccount when the plugin has it", async () => {
    const seen: unknown[] = [];
    const plugin = defineChannelPlugin({
      id: "demo",
      configSchema: z.strictObject({ n: z.number() }),
      createAdapter: () => {
        throw new Error("not this path");
      },
      createAccount: async (config, d) => {
        seen.push(config, d.accountId);
        return { adapter, receiver, close: async () => {} };
      },
    });
    const account = await openChannelAccount(plugin, { n: 1 }, deps);
    expect(seen).toEqual([{ n: 1 }, "main"]);
    expect(account.receiver).toBe(receiver);
  });

  it("falls back to createAdapter + createReceiver, or the adapter the caller built", async () => {
    const plugin = defineChannelPlugin({
      id: "demo",
      configSchema: z.strictObject({}),
      createAdapter: () => adapter,
      createReceiver: () => receiver,
    });
    const built = await openChannelAccount(plugin, {}, deps);
    expect(built.adapter).toBe(adapter);
    expect(built.receiver).toBe(receiver);
    const other = { ...adapter };
    expect((await openChannelAccount(plugin, {}, deps, other)).adapter).toBe(other);
  });
});
