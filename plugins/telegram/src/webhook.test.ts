/**
 * The webhook receiver's `webhook(Request)` — what the gateway mounts at
 * `/webhooks/telegram/:account` — with Telegram's requests built by hand (C08).
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { openBench } from "./testing/bench.ts";
import { ALICE, FAKE_BOT } from "./testing/FakeTelegram.ts";

const SECRET = "webhook-secret_token-123"; // what the bench hands the receiver
const webhookConfig = {
  receive: { mode: "webhook" as const, secretTokenEnv: "TELEGRAM_WEBHOOK_SECRET" },
};

const post = (body: unknown, secret: string | null = SECRET, method = "POST") =>
  new Request("http://127.0.0.1/webhooks/telegram/main", {
    method,
    headers: {
      "content-type": "application/json",
      ...(secret !== null ? { "x-telegram-bot-api-secret-token": secret } : {}),
    },
    ...(method === "POST" ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });

const update7001 = (chatId: number) => ({
  update_id: 7001,
  message: {
    message_id: 11,
    date: 1_700_000_000,
    chat: { id: chatId, type: "private", first_name: "Alice" },
    from: ALICE,
    text: "summarise the thread",
  },
});

describe("C08 · webhook with a slow handler", () => {
  it("answers 200 before the handler ends once 7001 is recorded, processes it once in the background, one reply", async () => {
    let release: () => void = () => {};
    const fifteenSeconds = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    const b = await openBench({
      config: webhookConfig,
      handler: async (ctx) => {
        runs += 1;
        await fifteenSeconds;
        await b.runtime.send(b.message(ctx.input.target, `answer to: ${ctx.input.body?.markdown}`));
      },
    });
    const { chat } = b.dm();
    const receiver = await b.startReceiver();
    const webhook = receiver.webhook?.bind(receiver) as (r: Request) => Promise<Response>;

    // The handler is held until the test releases it: a 200 now was answered without waiting
    // for it (an ordering, not a duration, so it holds on a busy machine).
    const first = await webhook(post(update7001(chat.id)));
    expect(first.status).toBe(200);
    await eventually(
      () => runs,
      (n) => n === 1,
      { what: "the handler to start" },
    );

    // Telegram gave up after 10 s and posts 7001 again.
    const repeat = await webhook(post(update7001(chat.id)));
    expect(repeat.status).toBe(200);
    expect(runs).toBe(1);

    release();
    await eventually(
      () => b.fake.messages(chat.id, { authorId: FAKE_BOT.id }),
      (v) => v.length === 1,
      { what: "the reply" },
    );
    expect((await webhook(post(update7001(chat.id)))).status).toBe(200); // after completion, too
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(runs).toBe(1);
    expect(b.fake.messages(chat.id, { authorId: FAKE_BOT.id }).map((m) => m.text)).toEqual([
      "answer to: summarise the thread",
    ]);
    // The reply is visible on the platform before the inbound's completion commits.
    await eventually(
      async () =>
        (
          await b.store.getDedupe({
            channel: "telegram",
            accountId: "main",
            eventId: `${chat.id}:11`,
          })
        )?.status,
      (status) => status === "done",
      { what: "the inbound to be completed" },
    );
    expect(runs).toBe(1);
  });

  it("rejects a wrong or missing secret with 401 and leaves no trace in the store", async () => {
    const b = await openBench({ config: webhookConfig });
    const { chat } = b.dm();
    const receiver = await b.startReceiver();
    const webhook = receiver.webhook?.bind(receiver) as (r: Request) => Promise<Response>;
    expect((await webhook(post(update7001(chat.id), "wrong-secret-token-1234"))).status).toBe(401);
    expect((await webhook(post(update7001(chat.id), `${SECRET}x`))).status).toBe(401);
    expect((await webhook(post(update7001(chat.id), null))).status).toBe(401);
    expect((await webhook(post({ garbage: true }, "short"))).status).toBe(401);
    expect((await webhook(post(undefined, SECRET, "GET"))).status).toBe(405);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(b.handled).toEqual([]);
    expect(await b.runtime.deadLetters.list()).toEqual([]);
    expect(
      await b.store.getDedupe({ channel: "telegram", accountId: "main", eventId: `${chat.id}:11` }),
    ).toBeUndefined();
  });

  it("dead-letters a body that is not JSON (authenticated), and answers updates it does not handle as ignored (counted), not dropped", async () => {
    const b = await openBench({ config: webhookConfig });
    const receiver = await b.startReceiver();
    const webhook = receiver.webhook?.bind(receiver) as (r: Request) => Promise<Response>;
    expect((await webhook(post("{not json"))).status).toBe(200);
    expect((await webhook(post({ update_id: 3, my_chat_member: {} }))).status).toBe(200);
    const letters = await b.runtime.deadLetters.list();
    expect(letters).toHaveLength(1);
    expect(letters[0]?.raw).toBe("{not json");
    await eventually(
      () => b.outcomes.filter((o) => o.status === "ignored"),
      (o) => o.length === 1,
      { what: "the ignored outcome" },
    );
    expect(b.outcomes).toContainEqual({
      status: "ignored",
      reason: "unsupported_update",
      detail: "my_chat_member",
    });
    expect(b.logLines.some((l) => l.includes("inbound event ignored"))).toBe(true);
  });

  it("registers the webhook with its secret token at start when publicUrl is set", async () => {
    const b = await openBench({
      config: {
        receive: {
          ...webhookConfig.receive,
          publicUrl: "https://bot.example.com/webhooks/telegram/main",
        },
      },
    });
    await b.startReceiver();
    expect(b.fake.queue().registered).toEqual({
      url: "https://bot.example.com/webhooks/telegram/main",
      secretToken: SECRET,
    });
  });

  it("processes updates Telegram delivers to the webhook, each once", async () => {
    const b = await openBench({ config: webhookConfig });
    const { chat } = b.dm();
    const receiver = await b.startReceiver();
    b.fake.connectWebhook({
      handler: (r) => (receiver.webhook as (r: Request) => Promise<Response>)(r),
      secretToken: SECRET,
    });
    const posted = b.fake.userPost({ chat: chat.id, text: "via webhook" });
    b.fake.redeliver(posted.message.message_id as number);
    await eventually(
      () => b.outcomes.map((o) => o.status).sort(),
      (s) => s.join() === "duplicate,processed",
      { what: "one processed, one duplicate" },
    );
    expect(b.fake.queue().deliveries.map((d) => d.status)).toEqual([200, 200]);
  });
});
