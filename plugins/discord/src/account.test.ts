/**
 * Opening an account: identity from `GET /users/@me`, a rejected token stops the account with
 * the fix (never retried forever), credentials checks never show the token.
 */
import { isChannelAccountError } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it, onTestFinished } from "vitest";
import { checkDiscordCredentials } from "./account.ts";
import { discordConfigSchema } from "./config.ts";
import { createDiscordAccount } from "./index.ts";
import { FAKE_BOT, FakeDiscord } from "./testing/FakeDiscord.ts";

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as never;

async function open(token: string, extra: Record<string, unknown> = {}) {
  const fake = await FakeDiscord.start();
  onTestFinished(() => fake.close());
  const config = discordConfigSchema.parse({ apiBase: fake.apiBase, ...extra });
  const deps = {
    accountId: "main",
    logger: silent,
    clock: Date.now,
    secret: () => token,
    sink: {} as never,
    signal: new AbortController().signal,
  };
  return { fake, config, deps };
}

describe("createDiscordAccount", () => {
  it("knows the bot from GET /users/@me before anything runs", async () => {
    const { config, deps } = await open(FAKE_BOT.token);
    const account = await createDiscordAccount(config, deps);
    expect(account.identity).toMatchObject({ id: FAKE_BOT.id, name: FAKE_BOT.username });
    expect(account.adapter.id).toBe("discord");
  });

  it("a rejected token is a ChannelAccountError naming the variable and the fix, without the token", async () => {
    const { config, deps } = await open("wrong-token-value-123");
    const error = await createDiscordAccount(config, deps).catch((e: unknown) => e);
    expect(isChannelAccountError(error)).toBe(true);
    expect((error as Error).message).toContain("DISCORD_TOKEN");
    expect((error as Error).message).not.toContain("wrong-token-value-123");
  });

  it("opens the gateway receiver, and the interactions endpoint when configured", async () => {
    const plain = await open(FAKE_BOT.token);
    const account = await createDiscordAccount(plain.config, plain.deps);
    expect(typeof account.receiver?.start).toBe("function");
    expect(account.receiver?.webhook).toBeUndefined();
    const { config, deps } = await open(FAKE_BOT.token, {
      interactions: { publicKey: "a".repeat(64) },
    });
    const withInteractions = await createDiscordAccount(config, deps);
    expect(typeof withInteractions.receiver?.webhook).toBe("function");
  });

  it("herald doctor: ok with the bot's name; a bad token says what to fix", async () => {
    const good = await open(FAKE_BOT.token);
    expect(await checkDiscordCredentials(good.config, good.deps)).toMatchObject({ ok: true });
    const bad = await open("bad-token-zzz-999");
    const result = await checkDiscordCredentials(bad.config, bad.deps);
    expect(result.ok).toBe(false);
    expect(result.detail).toContain("Reset Token");
    expect(result.detail).not.toContain("bad-token-zzz-999");
  });
});
