/**
 * [H23] The bot API beyond text, on the QA channel through a real runtime: `turn.react` /
 * `unreact` with keys derived from the message, `turn.reply({ text, files, actions })`,
 * `turn.files[i].fetch()`, `turn.history`, `turn.replyEphemeral`, and a click's `reply` keyed by
 * the click (a handler run again answers nothing new).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createMessageRuntime,
  type InboundAction,
  type MessageRuntime,
  SqliteStateStore,
} from "@herald/core";
import { createQaAdapter, qaConfigSchema } from "@herald/plugin-qa-channel";
import { DEFAULT_QA_BOT, QaPlatform } from "@herald/plugin-qa-channel/testing";
import { afterEach, expect, it } from "vitest";
import { type BotTurn, createBotTurn } from "./BotTurn.ts";
import { botAction } from "./features.ts";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(bot: (turn: BotTurn) => Promise<void>) {
  const platform = await QaPlatform.start();
  cleanup.push(() => platform.close());
  const store = new SqliteStateStore({ path: ":memory:" });
  const runtime: MessageRuntime = createMessageRuntime({
    store,
    adapters: [
      createQaAdapter(qaConfigSchema.parse({ baseUrl: platform.url }), DEFAULT_QA_BOT.token),
    ],
    delivery: { pollIntervalMs: 5 },
    live: { recoveryIntervalMs: 0 },
    receive: {
      handler: (ctx) =>
        runtime.turn({ input: ctx.input, signal: ctx.signal }, (turn) =>
          bot(createBotTurn(runtime, ctx, turn)),
        ),
    },
  });
  await runtime.start();
  cleanup.push(async () => {
    await runtime.stop(1_000);
    await store.close();
  });
  platform.createChat({ id: "room", type: "group" });
  return { platform, runtime, store };
}

it("C-H23-bot: react / unreact, a rich reply, inbound files, history and an ephemeral reply from one turn", async () => {
  const dir = mkdtempSync(join(tmpdir(), "h23-bot-"));
  writeFileSync(join(dir, "chart.txt"), "▁▃▅▇");
  const seen: Record<string, unknown> = {};
  const { platform, runtime, store } = await setup(async (turn) => {
    await turn.react("👀");
    const file = turn.files[0];
    seen.file = file && { name: file.name, sizeBytes: file.sizeBytes };
    seen.bytes = file && (await new Response(await file.fetch()).text());
    seen.history = (await turn.history({ limit: 5 })).map((m) => m.body?.markdown);
    await turn.reply({
      text: "Approve?",
      files: [{ path: join(dir, "chart.txt"), mimeType: "text/plain" }],
      actions: [{ kind: "button", id: "approve", label: "Approve" }],
    });
    await turn.replyEphemeral("only you");
    await turn.unreact("👀");
  });
  platform.post({ chat: "room", text: "earlier" });
  const since = platform.lastSeq;
  const res = await fetch(
    `${platform.url}/ui/chats/room/files?name=in.txt&mime_type=text/plain&user_id=alice&text=look`,
    { method: "POST", body: "inbound bytes" },
  );
  expect(res.status).toBe(200);
  for (const event of platform.eventsAfter(since))
    await runtime.receive(event, { channel: "qa" }).done;

  expect(seen).toEqual({
    file: { name: "in.txt", sizeBytes: 13 },
    bytes: "inbound bytes",
    history: ["earlier", "look"],
  });
  const inbound = platform.state.messages({ chat: "room" }).find((m) => m.text === "look");
  expect(platform.extras.reactionsOf(inbound?.id ?? "")).toBeUndefined(); // added, then removed
  const shown = platform.state
    .messages({ chat: "room" })
    .filter((m) => m.author.bot)
    .map((m) => platform.toWire(m));
  expect(
    shown.map((m) => [m.text, m.files?.map((f) => f.name), m.buttons?.map((b) => b.id)]),
  ).toEqual([
    ["", ["chart.txt"], undefined],
    ["Approve?", undefined, ["approve"]],
  ]);
  expect(platform.extras.ephemerals("room", "alice").map((e) => e.text)).toEqual(["only you"]);
  const keys = (await store.listIntents()).map((i) => i.idempotencyKey).sort();
  expect(keys.filter((k) => k.startsWith("react:"))).toEqual([
    `react:qa::qa:${inbound?.id}:add:👀:1`,
    `react:qa::qa:${inbound?.id}:remove:👀:1`,
  ]);
});

it("C-H23-bot-action: a click's reply is keyed by the click: answering it again sends nothing new", async () => {
  const { platform, runtime } = await setup(async () => {});
  const clicks: InboundAction[] = [];
  runtime.onAction((a) => {
    clicks.push(a);
  });
  const asked = await runtime.send({
    id: "ask",
    channel: "qa",
    direction: "outbound",
    target: { kind: "group", id: "room" },
    body: { markdown: "Approve?" },
    actions: [{ kind: "button", id: "approve", label: "Approve", value: "v1" }],
  });
  const click = platform.click({
    messageId: asked.primaryPlatformMessageId ?? "",
    actionId: "approve",
    user: { id: "alice" },
  });
  await runtime.receive(click, { channel: "qa" }).done;
  const action = clicks[0] as InboundAction;
  // A handler run twice for the same click (a crash after the reply): one answer.
  const first = await botAction(runtime, action).reply("approved");
  const second = await botAction(runtime, action).reply("approved (rerun)");
  expect(second.primaryPlatformMessageId).toBe(first.primaryPlatformMessageId);
  expect(botAction(runtime, action)).toMatchObject({ actionId: "approve", value: "v1" });
  const texts = platform.state.messages({ chat: "room" }).map((m) => m.text);
  expect(texts).toEqual(["Approve?", "approved"]);
});
