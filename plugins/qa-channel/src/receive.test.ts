import { type ChannelAccountDeps, isChannelAccountError } from "@herald/plugin-sdk/channel-message";
import {
  createMessageRuntime,
  createReceiverSink,
  eventually,
  type MessageReceiveContext,
  type MessageRuntime,
  SqliteStateStore,
} from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createQaAccount, createQaAdapter, createQaReceiverFor } from "./index.ts";
import { createReceive } from "./receive.ts";
import { testConfig } from "./testing/harness.ts";
import { DEFAULT_QA_BOT, QaPlatform } from "./testing/platform/QaPlatform.ts";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function startBot(platform: QaPlatform, store: SqliteStateStore) {
  const config = testConfig({
    baseUrl: platform.url,
    token: DEFAULT_QA_BOT.token,
    maxLength: 4_000,
    delivery: "idempotent",
  });
  const handled: MessageReceiveContext[] = [];
  const runtime: MessageRuntime = createMessageRuntime({
    store,
    adapters: [createQaAdapter(config, DEFAULT_QA_BOT.token)],
    receive: { handler: (ctx) => void handled.push(ctx) },
  });
  await runtime.start();
  const receiver = createQaReceiverFor(
    config,
    DEFAULT_QA_BOT.token,
    createReceiverSink(runtime, { channel: "qa", accountId: DEFAULT_QA_BOT.id }),
  );
  await receiver.start?.();
  const stop = async () => {
    await receiver.stop?.();
    await runtime.stop(1_000);
  };
  return { handled, runtime, stop };
}

describe("qa receive adapter", () => {
  it("normalizes a person's thread reply with sender, target, mention and reply relation", () => {
    const receive = createReceive("herald");
    const message = receive.normalize(
      {
        seq: 4,
        type: "message.created",
        message: {
          id: "17",
          chat_id: "room",
          chat_type: "group",
          thread_id: "12",
          reply_to_id: "15",
          text: "@herald what now?",
          author: { id: "alice", name: "Alice", is_bot: false },
          created_at: 1_000,
        },
      },
      { channel: "qa", receivedAt: 1_001 },
    );
    expect(message).toMatchObject({
      id: "qa:17",
      platformMessageId: "17",
      direction: "inbound",
      target: { kind: "thread", id: "room", threadId: "12" },
      sender: { id: "alice", displayName: "Alice", isBot: false },
      body: { markdown: "@herald what now?" },
      mentions: { self: true },
      relation: { kind: "reply", replyToId: "15" },
    });
  });

  it("reports message.deleted as a typed message_deleted event (not a silent skip)", () => {
    const receive = createReceive("herald");
    const event = receive.normalize(
      {
        seq: 9,
        type: "message.deleted",
        message: {
          id: "17",
          chat_id: "room",
          chat_type: "group",
          text: "",
          author: { id: "alice", is_bot: false },
          created_at: 1_000,
          deleted: true,
        },
      },
      { channel: "qa", accountId: "main", receivedAt: 1_001 },
    );
    expect(event).toMatchObject({
      kind: "event",
      type: "message_deleted",
      id: "deleted:17",
      accountId: "main",
      platformMessageId: "17",
      target: { kind: "group", id: "room" },
    });
  });

  it("createAccount stops on a rejected token with the fix and herald doctor, and names the bot otherwise", async () => {
    const platform = await QaPlatform.start();
    cleanup.push(() => platform.close());
    const store = new SqliteStateStore({ path: ":memory:" });
    cleanup.push(() => store.close());
    const runtime = createMessageRuntime({ store, adapters: [] });
    const config = testConfig({
      baseUrl: platform.url,
      token: DEFAULT_QA_BOT.token,
      maxLength: 4_000,
      delivery: "idempotent",
    });
    const deps = (token: string): ChannelAccountDeps => ({
      accountId: "main",
      logger: createReceiverSink(runtime, { channel: "qa" }).logger,
      clock: Date.now,
      secret: () => token,
      sink: createReceiverSink(runtime, { channel: "qa", accountId: "main" }),
      signal: new AbortController().signal,
    });
    const error = await createQaAccount(config, deps("u-nobody:wrong")).catch((e: unknown) => e);
    expect(isChannelAccountError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /qa\/main: the QA platform rejected the token \(401\).*herald doctor/,
    );
    const account = await createQaAccount(config, deps(DEFAULT_QA_BOT.token));
    expect(account.identity?.id).toBe(DEFAULT_QA_BOT.id);
    await account.close();
  });

  it("dead-letters a malformed event with the field path, and nothing else is affected", async () => {
    const platform = await QaPlatform.start();
    const store = new SqliteStateStore({ path: ":memory:" });
    cleanup.push(
      () => platform.close(),
      () => store.close(),
    );
    const bot = await startBot(platform, store);
    cleanup.push(bot.stop);
    const { done } = bot.runtime.receive(
      { seq: 1, type: "message.created", message: { id: "1", chat_type: "group" } },
      { channel: "qa" },
    );
    expect(await done).toMatchObject({ status: "dead_lettered" });
    const [letter] = await bot.runtime.deadLetters.list({ channel: "qa" });
    expect(letter?.error.path).toBe("message.chat_id");
  });
});

describe("qa event-stream receiver", () => {
  it("resumes after its watermark: a restarted bot gets what it missed, nothing twice", async () => {
    const platform = await QaPlatform.start();
    const store = new SqliteStateStore({ path: ":memory:" });
    cleanup.push(
      () => platform.close(),
      () => store.close(),
    );
    const room = platform.createChat({ type: "group" });
    const first = await startBot(platform, store);
    platform.post({ chat: room.id, text: "one" });
    platform.post({ chat: room.id, text: "two" });
    await eventually(
      () => first.handled.length,
      (n) => n === 2,
      { what: "two messages" },
    );
    await eventually(
      () => store.getWatermark({ channel: "qa", accountId: DEFAULT_QA_BOT.id, source: "events" }),
      (w) => w === "2",
      { what: "the watermark at 2" },
    );
    await first.stop();

    platform.post({ chat: room.id, text: "three (while down)" });
    const second = await startBot(platform, store);
    cleanup.push(second.stop);
    await eventually(
      () => second.handled.length,
      (n) => n === 1,
      { what: "the missed message" },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second.handled.map((t) => t.input.body?.markdown)).toEqual(["three (while down)"]);
  });

  it("reconnects when the platform drops the stream and misses nothing", async () => {
    const platform = await QaPlatform.start();
    const store = new SqliteStateStore({ path: ":memory:" });
    cleanup.push(
      () => platform.close(),
      () => store.close(),
    );
    const room = platform.createChat({ type: "direct" });
    const bot = await startBot(platform, store);
    cleanup.push(bot.stop);
    platform.post({ chat: room.id, text: "before the drop" });
    await eventually(
      () => bot.handled.length,
      (n) => n === 1,
    );
    platform.faults.dropConnections();
    platform.post({ chat: room.id, text: "after the drop" });
    await eventually(
      () => bot.handled.length,
      (n) => n === 2,
      { what: "the message after the drop" },
    );
    expect(bot.handled.map((t) => t.input.body?.markdown)).toEqual([
      "before the drop",
      "after the drop",
    ]);
  });
});
