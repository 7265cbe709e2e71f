/**
 * `createAccount` ([H15] 1, [H17] 5): `getMe` before anything runs — a wrong token stops the
 * account with the fix and `herald doctor` (no 401 retried forever), the username comes from
 * Telegram, and the receiver reports its health.
 */
import { type ChannelAccountDeps, isChannelAccountError } from "@herald/plugin-sdk/channel-message";
import {
  createMessageRuntime,
  createReceiverSink,
  eventually,
  SqliteStateStore,
} from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { telegramConfigSchema } from "./config.ts";
import telegram from "./index.ts";
import { FAKE_BOT, FakeTelegram } from "./testing/FakeTelegram.ts";

const silentLogger: ChannelAccountDeps["logger"] = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

async function open(token: string) {
  const fake = await FakeTelegram.start();
  const store = new SqliteStateStore({ path: ":memory:" });
  const config = telegramConfigSchema.parse({
    apiRoot: fake.apiRoot,
    tokenEnv: "TG_TOKEN",
    receive: { mode: "polling", pollTimeoutSeconds: 1, pinnedPollIntervalMs: 50, retryDelayMs: 50 },
  });
  const handled: string[] = [];
  const runtime = createMessageRuntime({
    store,
    adapters: [],
    receive: {
      handler: (ctx) => {
        handled.push(`${ctx.input.body?.markdown}:${ctx.input.mentions?.self}`);
      },
    },
  });
  const deps: ChannelAccountDeps = {
    accountId: "main",
    logger: silentLogger,
    clock: Date.now,
    secret: (name) => {
      if (name !== "TG_TOKEN") throw new Error(`environment variable ${name} is not set`);
      return token;
    },
    sink: createReceiverSink(runtime, { channel: "telegram", accountId: "main" }),
    signal: new AbortController().signal,
  };
  onTestFinished(async () => {
    await runtime.stop(500);
    await store.close();
    await fake.close();
  });
  return { fake, config, deps, runtime, handled };
}

describe("createAccount", () => {
  it("stops at start on a rejected token, naming the variable, the fix and herald doctor — never the token", async () => {
    const token = "123456:AAwrongTokenValueNobodyKnows_42";
    const { config, deps } = await open(token);
    const error = await telegram.createAccount?.(config, deps).catch((e: unknown) => e);
    expect(isChannelAccountError(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("telegram/main");
    expect(message).toContain("check the token in TG_TOKEN with @BotFather");
    expect(message).toContain("herald doctor");
    expect(message).not.toContain(token.split(":")[1]);
  });

  it("knows the bot from getMe: the username recognises @mentions without config", async () => {
    const { fake, config, deps, runtime, handled } = await open(FAKE_BOT.token);
    const account = await telegram.createAccount?.(config, deps);
    if (!account) throw new Error("no account");
    expect(account.identity).toEqual({ id: String(FAKE_BOT.id), name: FAKE_BOT.username });
    runtime.addAdapter(account.adapter, "main");
    await account.receiver?.start?.(deps.signal);
    onTestFinished(() => account.receiver?.stop?.());
    const chat = fake.createChat({ type: "supergroup", title: "team" });
    const text = `@${FAKE_BOT.username} hi`;
    fake.userPost({
      chat: chat.id,
      text,
      entities: [{ type: "mention", offset: 0, length: FAKE_BOT.username.length + 1 }],
    });
    await eventually(
      () => handled,
      (h) => h.length === 1,
      { what: "the mention" },
    );
    expect(handled).toEqual([`${text}:true`]);
    expect(account.receiver?.health?.().state).toBe("up");
  });
});
