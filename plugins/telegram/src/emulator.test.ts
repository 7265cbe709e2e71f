/**
 * The Telegram plugin against `telegram-test-api` (npm, jehy/telegram-test-api 4.2.1): a Bot API
 * emulator written by someone else, so a belief shared by our plugin and our own fake cannot
 * pass here by agreement (STYLE "A fake is a claim about the platform", issue [H21] item 4).
 * Covered: receive by polling, a reply, a chunked reply, a live preview, a restart mid-handler
 * answered once.
 *
 * Where the emulator differs from Telegram (PLATFORMS.md §9, read from its source), and what
 * these tests do about it — herald is never changed or weakened for it:
 * - `getUpdates` ignores `offset`, `timeout` and `limit`: an update is marked read the first
 *   time it is handed out and never handed out again, and an empty poll is answered `[]` at
 *   once. Telegram holds the long poll and keeps an update until an offset above it confirms it.
 *   So the receiver's `emptyPollGapMs` is what keeps polling from a hot loop here (C42), and the
 *   restart test shows herald answers a message whose update the platform will never resend.
 * - `sendMessage` answers `date` in milliseconds (Telegram: seconds) and `chat` as a private
 *   chat named "Bot" whatever the chat was; herald reads only `message_id` (and keeps its own
 *   chat id), so neither matters here.
 * - `editMessageText` answers `result: null` (Telegram: the edited `Message`, or `true` for an
 *   inline message); herald does not read an edit's result.
 * - It knows 9 methods; any other (`sendChatAction`, media) answers HTTP 500 `{ message }`, not a
 *   Bot API error body. These tests call none of them.
 * - Apart from `deleteMessage` of an unknown message (`ok: false`, 400, but with HTTP 200) it
 *   never answers an error (no length limit, no 429, no "message is not modified"), so only the
 *   happy path is checked here; the errors are our own fake's job.
 * - User updates carry the emulator's `botToken` field inside `message`; herald's update schema
 *   lets unknown fields through.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MessageReceiveContext } from "@herald/plugin-sdk/testing";
import { eventually, openTestRun, runNodeChild } from "@herald/plugin-sdk/testing";
// The class by its module: the package's main replaces `module.exports` (a CommonJS default that
// TypeScript's NodeNext typing cannot see through).
import { TelegramServer } from "telegram-test-api/lib/telegramServer.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { TELEGRAM_TEXT_LIMIT } from "./config.ts";
import { createTelegramAdapter, createTelegramReceiver } from "./index.ts";
import type { EmulatorChildConfig } from "./testing/emulatorChild.ts";
import { testConfig } from "./testing/harness.ts";

/** A free port on 127.0.0.1 (the emulator reads `port: 0` as its default, 9000). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

let server: TelegramServer;
let apiRoot: string;
beforeAll(async () => {
  const port = await freePort();
  server = new TelegramServer({ port, host: "127.0.0.1" });
  await server.start();
  apiRoot = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await server?.stop();
});

/** Each test has its own bot: the emulator keeps every bot's updates apart by token. */
let bots = 0;
const nextToken = () => `71000${++bots}:AAemulator-test-token-${bots}`;

/** The bot's messages as the emulator stores them (after edits), oldest first. */
const botTexts = (token: string) =>
  server.storage.botMessages.filter((m) => m.botToken === token).map((m) => m.message.text);

/** A person writes to the bot in a private chat. */
async function userSays(token: string, text: string, chatId = 42): Promise<void> {
  const client = server.getClient(token, { chatId, userId: chatId, firstName: "Alice" });
  await server.addUserMessage(client.makeMessage(text));
}

const pollingConfig = (token: string) =>
  testConfig(
    { apiRoot, token, unknownSendPolicy: "hold", reconcile: "off" },
    {
      receive: {
        mode: "polling",
        pollTimeoutSeconds: 1,
        emptyPollGapMs: 100,
        pinnedPollIntervalMs: 50,
        retryDelayMs: 50,
      },
    },
  );

/** A real runtime with the adapter and the polling receiver on the emulator. */
async function openEmulatorRun(
  token: string,
  handler: (ctx: MessageReceiveContext, run: Awaited<ReturnType<typeof openTestRun>>) => unknown,
) {
  const config = pollingConfig(token);
  const adapter = createTelegramAdapter(config, token);
  const run = await openTestRun({
    adapters: [adapter],
    accountId: "main",
    handler: async (ctx) => {
      await handler(ctx, run);
    },
  });
  const receiver = createTelegramReceiver(config, token, run.sink(adapter.id));
  await receiver.start?.();
  onTestFinished(async () => {
    await receiver.stop?.();
    await run.close();
  });
  return run;
}

describe("against telegram-test-api (a third-party Bot API emulator)", () => {
  it("receives a message by polling and replies to it", async () => {
    const token = nextToken();
    const run = await openEmulatorRun(token, async (ctx, r) => {
      await r.runtime.send(
        r.message("telegram", ctx.input.target, `you said **${ctx.input.body?.markdown}**`),
      );
    });
    await userSays(token, "hello");
    await eventually(
      () => botTexts(token),
      (t) => t.length === 1,
      { what: "the reply" },
    );
    expect(botTexts(token)).toEqual(["you said hello"]);
    expect(run.handled.map((h) => h.input.target)).toMatchObject([{ kind: "direct", id: "42" }]);
    // Bold went out as an entity, not as markup (herald sends text + entities).
    const [sent] = server.storage.botMessages.filter((m) => m.botToken === token);
    expect(sent?.message.entities).toEqual([{ type: "bold", offset: 9, length: 5 }]);
  });

  it("splits a long reply into parts within Telegram's limit, in order, nothing lost", async () => {
    const token = nextToken();
    const long = Array.from({ length: 1_400 }, (_, i) => `word${i}`).join(" ");
    await openEmulatorRun(token, async (ctx, r) => {
      await r.runtime.send(r.message("telegram", ctx.input.target, long));
    });
    await userSays(token, "tell me everything");
    const parts = await eventually(
      () => botTexts(token),
      (t) => t.join(" ").split(/\s+/).length >= 1_400,
      { what: "every part" },
    );
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(parts.join(" ").split(/\s+/)).toEqual(long.split(" "));
  });

  it("shows a live preview and edits it into the final answer: one message", async () => {
    const token = nextToken();
    let edits = 0;
    const countEdit = () => {
      edits += 1;
    };
    server.on("EditedMessageText", countEdit);
    onTestFinished(() => {
      server.off("EditedMessageText", countEdit);
    });
    await openEmulatorRun(token, async (ctx, r) => {
      const live = await r.runtime.live(
        { channel: "telegram", target: ctx.input.target },
        { idempotencyKey: `live:${ctx.id}` },
      );
      live.update("Thinking…");
      await live.idle();
      await live.finalize("The answer is 42.");
    });
    await userSays(token, "what is the answer?");
    await eventually(
      () => edits,
      (n) => n >= 1,
      { what: "the preview edited" },
    );
    expect(botTexts(token)).toEqual(["The answer is 42."]);
  });

  it("a restart mid-handler (killed right after the reply was committed) is answered once, though the emulator never hands the update out again", async () => {
    const token = nextToken();
    const dir = await mkdtemp(join(tmpdir(), "herald-telegram-emulator-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const logPath = join(dir, "handler.log");
    writeFileSync(logPath, "");
    const child = fileURLToPath(new URL("./testing/emulatorChild.ts", import.meta.url));
    const base: Omit<EmulatorChildConfig, "phase"> = {
      apiRoot,
      token,
      storePath: join(dir, "herald.db"),
      logPath,
    };
    const nodeArgs = ["--conditions=herald-source"];
    await userSays(token, "once please");

    const first = await runNodeChild(child, [JSON.stringify({ ...base, phase: "first" })], {
      failpoints: { "send.after_commit": "kill" },
      nodeArgs,
    });
    expect(first.killed, `not killed at send.after_commit: ${first.stderr}`).toBe(true);
    expect(botTexts(token)).toEqual(["answer to once please"]);
    // Read once: the emulator will not hand the update out again (Telegram would, until an
    // offset above it confirms it). herald's own inbox is what brings it back.
    expect(server.getUpdates(token)).toEqual([]);

    const restart = await runNodeChild(child, [JSON.stringify({ ...base, phase: "restart" })], {
      nodeArgs,
    });
    expect(restart.code, `restart failed: ${restart.stderr}`).toBe(0);
    const log = readFileSync(logPath, "utf8").split("\n").filter(Boolean);
    expect(log).toEqual([
      "handler once please recovered=false",
      "handler once please recovered=true",
      "replied",
    ]);
    expect(botTexts(token)).toEqual(["answer to once please"]);
  });
});
