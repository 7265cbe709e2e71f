/**
 * A fake of the HTTP chat API (README "The API") on 127.0.0.1, built on the SDK's
 * `FakePlatformServer` (routes, scripted faults) and `VisibleState` (what the chat shows; the
 * API deduplicates client keys). Inbound messages are delivered to a connected webhook, signed
 * like the real API, and redelivered while the bot answers anything but 2xx.
 *
 * @module
 */
import { createHmac } from "node:crypto";
import type { MessageOrigin } from "@herald/plugin-sdk/channel-message";
import {
  type Context,
  type FakePlatformEnv,
  FakePlatformServer,
  type VisibleMessage,
  VisibleState,
} from "@herald/plugin-sdk/testing";
import type { WireMessage } from "../client.ts";
import { HTTPCHAT_MAX_TEXT } from "../index.ts";

/** A user of the fake: the bot under test, a person, another bot. */
export type FakeHttpChatUser = { id: string; name: string; bot: boolean };

/** A bot account of the fake: its user id, token and webhook secret. */
export type FakeHttpChatBot = {
  readonly id: string;
  readonly name: string;
  readonly token: string;
  readonly webhookSecret: string;
};

/** The bot the fake knows (its token and webhook secret). */
export const FAKE_BOT = {
  id: "b-herald",
  name: "herald_bot",
  token: "tok-bot-1234567",
  webhookSecret: "whsec-abcdef123",
} as const satisfies FakeHttpChatBot;

/** A second bot account on the same API (two accounts of one channel). */
export const SECOND_BOT = {
  id: "b-herald-2",
  name: "herald_bot_two",
  token: "tok-bot-7654321",
  webhookSecret: "whsec-fedcba321",
} as const satisfies FakeHttpChatBot;
/** A person who writes to the bot. */
export const ALICE: FakeHttpChatUser = { id: "u-alice", name: "Alice", bot: false };
/** Another bot in the same rooms. */
export const OTHER_BOT: FakeHttpChatUser = { id: "b-other", name: "other_bot", bot: true };

/**
 * The headers the API signs a webhook delivery with: `X-HttpChat-Timestamp` (epoch seconds)
 * and `X-HttpChat-Signature: sha256=<HMAC-SHA256 of "<timestamp>.<body>">`.
 *
 * @param now - epoch ms of the signature. @defaultValue Date.now()
 */
export function signedHeaders(
  secret: string,
  body: string,
  now = Date.now(),
): Record<string, string> {
  const timestamp = String(Math.floor(now / 1_000));
  const digest = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return { "x-httpchat-timestamp": timestamp, "x-httpchat-signature": `sha256=${digest}` };
}

/** A message as the fake answers it: the adapter's schema, plus the client key it stored. */
export type FakeWireMessage = Omit<WireMessage, "metadata"> & {
  key?: string;
  metadata?: Record<string, unknown>;
};

/** A webhook event as the API posts it. */
export type FakeHttpChatEvent = {
  event_id: string;
  type: "message.created";
  message: FakeWireMessage;
};

type Handler = (request: Request) => Promise<Response>;

/** The fake API. `start()` listens; `close()` stops it (pending webhook deliveries included). */
export class FakeHttpChat {
  readonly state = new VisibleState({ idempotentKeys: true, keyTtlMs: 24 * 3_600_000 });
  readonly server = new FakePlatformServer();
  readonly #chats = new Map<string, "direct" | "group">();
  readonly #events = new Map<string, FakeHttpChatEvent>();
  readonly #pending = new Set<Promise<void>>();
  /** Bot accounts by token. */
  readonly #bots: ReadonlyMap<string, FakeHttpChatBot>;
  /** Each bot's webhook, by bot id. */
  readonly #webhooks = new Map<string, Handler>();
  #seq = 0;

  /** Starts a fake on a free port, with `bots` (default: {@link FAKE_BOT} and {@link SECOND_BOT}). */
  static async start(
    bots: readonly FakeHttpChatBot[] = [FAKE_BOT, SECOND_BOT],
  ): Promise<FakeHttpChat> {
    const fake = new FakeHttpChat(bots);
    await fake.server.listen();
    return fake;
  }

  constructor(bots: readonly FakeHttpChatBot[] = [FAKE_BOT, SECOND_BOT]) {
    this.#bots = new Map(bots.map((b) => [b.token, b]));
    const s = this.server;
    s.route("GET", "/v1/me", "read", (c) =>
      this.#authed(c, (bot) => c.json({ id: bot.id, name: bot.name })),
    );
    s.route("POST", "/v1/chats/:chat/messages", "send", (c) =>
      this.#inChat(c, async (chat, bot) => {
        const body = (await c.req.json()) as {
          text?: unknown;
          key?: string;
          thread_id?: string;
          reply_to?: string;
          metadata?: unknown;
        };
        if (typeof body.text !== "string" || body.text.trim() === "")
          return s.error({
            status: 400,
            code: "empty_text",
            description: "text must be a non-empty string",
          });
        if (body.text.length > HTTPCHAT_MAX_TEXT)
          return s.error({
            status: 400,
            code: "text_too_long",
            description: `text is ${body.text.length} > ${HTTPCHAT_MAX_TEXT} UTF-16 units`,
          });
        const { message } = this.state.post({
          chat,
          text: body.text,
          author: { id: bot.id, name: bot.name, bot: true },
          ...(body.key !== undefined ? { key: body.key } : {}),
          ...(body.thread_id !== undefined ? { thread: body.thread_id } : {}),
          ...(body.reply_to !== undefined ? { replyTo: body.reply_to } : {}),
          ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
        });
        return c.json({ message: this.wire(message) });
      }),
    );
    s.route("GET", "/v1/chats/:chat/messages", "read", (c) =>
      this.#inChat(c, (chat) => {
        const key = c.req.query("key");
        const found = key ? this.state.byKey(key, chat) : this.state.messages({ chat });
        return c.json({ messages: found.map((m) => this.wire(m)) });
      }),
    );
    s.route("PATCH", "/v1/chats/:chat/messages/:id", "edit", (c) =>
      this.#inChat(c, async () => {
        const { text } = (await c.req.json()) as { text: string };
        if (text.length > HTTPCHAT_MAX_TEXT)
          return s.error({ status: 400, code: "text_too_long", description: "text too long" });
        const r = this.state.edit(c.req.param("id") ?? "", text);
        if (r.status === "not_found")
          return s.error({
            status: 404,
            code: "message_not_found",
            description: "no such message",
          });
        return c.json({ message: this.wire(r.message), modified: r.status === "edited" });
      }),
    );
    s.route("DELETE", "/v1/chats/:chat/messages/:id", "delete", (c) =>
      this.#inChat(c, () => {
        const r = this.state.delete(c.req.param("id") ?? "");
        if (r.status === "not_found")
          return s.error({
            status: 404,
            code: "message_not_found",
            description: "no such message",
          });
        return c.body(null, 204);
      }),
    );
    s.route("POST", "/v1/chats/:chat/typing", "typing", (c) =>
      this.#inChat(c, async (chat, bot) => {
        const { on } = (await c.req.json()) as { on: boolean };
        this.state.typing(chat, bot.id, on);
        return c.body(null, 204);
      }),
    );
  }

  /** The base URL (`http://127.0.0.1:<port>`). */
  get url(): string {
    return this.server.url;
  }

  /** Creates a conversation. @returns its id. */
  createChat(kind: "direct" | "group"): string {
    const id = `c${this.#chats.size + 1}`;
    this.#chats.set(id, kind);
    return id;
  }

  /** A message as the API returns it. */
  wire(m: VisibleMessage): FakeWireMessage {
    return {
      id: m.id,
      chat_id: m.chat,
      chat_type: this.#chats.get(m.chat) ?? "group",
      ...(m.thread !== undefined ? { thread_id: m.thread } : {}),
      ...(m.replyTo !== undefined ? { reply_to: m.replyTo } : {}),
      text: m.text,
      author: { id: m.author.id, name: m.author.name ?? m.author.id, bot: m.author.bot },
      ...(m.key !== undefined ? { key: m.key } : {}),
      ...(m.metadata !== undefined ? { metadata: m.metadata as Record<string, unknown> } : {}),
      created_at: m.createdAt,
    };
  }

  /** Where the API posts events for bot `botId` (its webhook URL, here its handler). */
  connectWebhook(handler: Handler, botId: string = FAKE_BOT.id): void {
    this.#webhooks.set(botId, handler);
  }

  /**
   * `author` writes `text` in `chat` (optionally inside `thread`, with herald origin metadata);
   * the event goes to the webhook in the background. @returns the message.
   */
  say(
    author: FakeHttpChatUser,
    chat: string,
    text: string,
    extra: { thread?: string; origin?: MessageOrigin } = {},
  ): VisibleMessage {
    const { message } = this.state.post({
      chat,
      text,
      author,
      ...(extra.thread !== undefined ? { thread: extra.thread } : {}),
      ...(extra.origin ? { metadata: { herald_origin: extra.origin } } : {}),
    });
    const event: FakeHttpChatEvent = {
      event_id: `e${++this.#seq}`,
      type: "message.created",
      message: this.wire(message),
    };
    this.#events.set(message.id, event);
    this.#deliver(event);
    return message;
  }

  /**
   * Delivers the event of message `id` again, as the API does after a failed delivery (same
   * `event_id`) or — with `newEventId` — when its queue posts a message's event once more
   * under a new event id (at-least-once across the API's own restarts).
   */
  redeliver(id: string, options: { newEventId?: boolean } = {}): void {
    // A message a bot posted through the API has no event yet: the API posts one to every
    // other bot's webhook in the chat, under a new event id (as for a user's message).
    const posted = this.#events.has(id) ? undefined : this.state.get(id);
    if (posted)
      this.#events.set(id, {
        event_id: `e${++this.#seq}`,
        type: "message.created",
        message: this.wire(posted),
      });
    const event = this.#events.get(id);
    if (!event) throw new Error(`FakeHttpChat: no message ${id}`);
    this.#deliver(options.newEventId ? { ...event, event_id: `e${++this.#seq}` } : event);
  }

  /**
   * Posts an attacker's event for a new message in `chat` to the webhook: signed with the
   * wrong secret (`forged`), not signed (`missing`), or correctly signed ten minutes ago
   * (`stale`, a captured delivery replayed). Nothing is stored on the fake.
   * @returns the webhook's answer.
   * @throws Error when no webhook is connected.
   */
  async forge(kind: "forged" | "missing" | "stale", chat: string): Promise<Response> {
    const handler = this.#webhooks.get(FAKE_BOT.id);
    if (!handler) throw new Error("FakeHttpChat: no webhook connected");
    const body = JSON.stringify({
      event_id: "e-forged",
      type: "message.created",
      message: {
        id: "m-forged",
        chat_id: chat,
        chat_type: this.#chats.get(chat) ?? "group",
        text: `a ${kind} delivery`,
        author: { id: ALICE.id, name: ALICE.name, bot: false },
        created_at: Date.now(),
      },
    });
    const headers =
      kind === "missing"
        ? {}
        : kind === "forged"
          ? signedHeaders(`${FAKE_BOT.webhookSecret}-wrong`, body)
          : signedHeaders(FAKE_BOT.webhookSecret, body, Date.now() - 10 * 60_000);
    return handler(new Request(`${this.url}/webhook`, { method: "POST", headers, body }));
  }

  /** Stops the server after pending deliveries finished. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
    await this.server.close();
  }

  /** Posts `event` to every bot's connected webhook, signed with that bot's secret. */
  #deliver(event: FakeHttpChatEvent): void {
    for (const bot of this.#bots.values()) {
      const handler = this.#webhooks.get(bot.id);
      if (handler) this.#deliverTo(handler, bot.webhookSecret, event);
    }
  }

  #deliverTo(handler: Handler, secret: string, event: FakeHttpChatEvent): void {
    const body = JSON.stringify(event);
    const run = (async () => {
      for (let attempt = 0; attempt < 20; attempt++) {
        // Signed afresh for every attempt, with the time of sending.
        const request = new Request(`${this.url}/webhook`, {
          method: "POST",
          headers: signedHeaders(secret, body),
          body,
        });
        const res = await handler(request).catch(() => undefined);
        if (res?.ok) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
  }

  #authed(
    c: Context<FakePlatformEnv>,
    next: (bot: FakeHttpChatBot) => Response | Promise<Response>,
  ): Response | Promise<Response> {
    const token = c.req.header("authorization")?.replace(/^Bearer /, "") ?? "";
    const bot = this.#bots.get(token);
    if (!bot)
      return this.server.error({
        status: 401,
        code: "invalid_token",
        description: "the bearer token is not valid",
      });
    return next(bot);
  }

  #inChat(
    c: Context<FakePlatformEnv>,
    next: (chat: string, bot: FakeHttpChatBot) => Response | Promise<Response>,
  ): Response | Promise<Response> {
    return this.#authed(c, (bot) => {
      const chat = c.req.param("chat") ?? "";
      if (!this.#chats.has(chat))
        return this.server.error({
          status: 404,
          code: "chat_not_found",
          description: `no chat ${chat}`,
        });
      return next(chat, bot);
    });
  }
}
