/**
 * A fake Telegram Bot API on 127.0.0.1 for tests: the real grammY client talks to it through
 * `apiRoot`. Built on the SDK's `FakePlatformServer` (fault injection: statuses, 429 with
 * `retry_after`, resets before / after the call is applied, delays, refused connections) and
 * `VisibleState` (what each chat and forum topic shows). It validates like Telegram where herald
 * depends on it: text and caption limits in UTF-16 units, entity bounds, MarkdownV2 escaping,
 * "message is not modified", "message to edit not found", "message thread not found" (also for
 * the General topic, id 1), bots editing only their own messages, `getUpdates` offsets that
 * confirm, and webhook deliveries with the secret token.
 *
 * @example
 * const telegram = await FakeTelegram.start();
 * const chat = telegram.createChat({ type: "supergroup", forum: true });
 * const topic = telegram.createTopic(chat.id, "Billing");
 * telegram.userPost({ chat: chat.id, thread: topic, text: "hi @herald_test_bot" });
 * // point the adapter at telegram.apiRoot with FAKE_BOT.token
 *
 * @module
 */
import {
  FakePlatformServer,
  type FaultTarget,
  type PlatformFault,
  type VisibleMessage,
  VisibleState,
} from "@herald/plugin-sdk/testing";
import { type FakeTelegramLimits, SendLimiter } from "./fakeLimits.ts";
import { registerBotApi } from "./fakeMethods.ts";
import type {
  FakeBotAccount,
  FakeChat,
  FakeStoredMessage,
  FakeTelegramCore,
  FakeUser,
} from "./fakeTypes.ts";
import { type FakeUpdate, type FakeWebhook, UpdateQueue } from "./fakeUpdates.ts";
import { telegramErrorBody } from "./fakeWire.ts";
import { FIXTURE_BOT } from "./fixtures.ts";

export type { FakeBotAccount, FakeChat, FakeStoredMessage, FakeUser } from "./fakeTypes.ts";

/** The default bot (the fixtures' bot). */
export const FAKE_BOT: FakeBotAccount = {
  id: FIXTURE_BOT.id,
  username: FIXTURE_BOT.username,
  firstName: FIXTURE_BOT.first_name,
  token: FIXTURE_BOT.token,
};

/** A second bot, for tests of other bots' messages. */
export const OTHER_FAKE_BOT: FakeBotAccount = {
  id: 7000002,
  username: "other_test_bot",
  firstName: "other bot",
  token: "7000002:AAH4otherBotTokenForTests_Lm3",
};

/** The default human in tests. */
export const ALICE: FakeUser = {
  id: 1111111,
  is_bot: false,
  first_name: "Alice",
  username: "alice",
};

/** Options of {@link FakeTelegram.start}. */
export type FakeTelegramOptions = {
  /** Bots whose tokens are accepted. @defaultValue [FAKE_BOT, OTHER_FAKE_BOT] */
  bots?: FakeBotAccount[];
  /** Delay before every call, like a real round trip, in ms. @defaultValue 0 */
  latencyMs?: number;
  /**
   * Telegram's flood limits, enforced on sends with 429 + `retry_after` (see `fakeLimits.ts`).
   * @defaultValue none enforced
   */
  limits?: FakeTelegramLimits;
  /** How long a chat action shows without a refresh, in ms. @defaultValue 5_000 */
  typingLapseMs?: number;
  /** The first message id handed out (ids count up across chats). @defaultValue 100 */
  firstMessageId?: number;
  /**
   * Answer every `getUpdates` at once (`[]` when nothing is queued) instead of holding the long
   * poll: what an emulator or a proxy may do (CASES C42). @defaultValue false
   */
  answerPollsAtOnce?: boolean;
  /** Epoch-ms clock of the recorded calls' `at` (`server.calls`). @defaultValue Date.now */
  clock?: () => number;
  /**
   * Port on 127.0.0.1, so a config started separately can point `apiRoot` at
   * `http://127.0.0.1:<port>`. @defaultValue 0 (any free port; read it from `apiRoot`)
   */
  port?: number;
};

/** The fake Bot API server. */
export class FakeTelegram implements FakeTelegramCore {
  readonly server: FakePlatformServer;
  readonly state: VisibleState;
  readonly bots: readonly FakeBotAccount[];
  readonly chats = new Map<number, FakeChat>();
  /** Stored messages by `message_id` (ids are unique across chats here). */
  readonly stored = new Map<number, FakeStoredMessage>();
  readonly pushedVerbatim = new WeakSet<object>();
  #queues = new Map<number, UpdateQueue>();
  readonly #answerPollsAtOnce: boolean;
  #nextGroupId = 1_000_000_001;
  #nextUserId = 5_000_001;
  #answerWithoutId = 0;
  #resetEvery = 0;
  #acceptedSends = 0;
  /** The flood limits in force (`options.limits`), with their 429 count. */
  readonly limiter: SendLimiter | undefined;
  /** Webhook deliveries and `getUpdates` confirmations are per bot; see {@link queue}. */

  private constructor(options: FakeTelegramOptions) {
    this.bots = options.bots ?? [FAKE_BOT, OTHER_FAKE_BOT];
    this.server = new FakePlatformServer({
      platform: "telegram",
      wire: { errorBody: telegramErrorBody },
      ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
    });
    this.#answerPollsAtOnce = options.answerPollsAtOnce === true;
    this.state = new VisibleState({
      typingLapseMs: options.typingLapseMs ?? 5_000,
      firstId: options.firstMessageId ?? 100,
    });
    this.limiter = options.limits ? new SendLimiter(options.limits) : undefined;
    registerBotApi(this);
  }

  /** Starts a fake on 127.0.0.1: `options.port`, or a free port. */
  static async start(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
    const fake = new FakeTelegram(options);
    await fake.server.listen();
    return fake;
  }

  /** The `apiRoot` to give grammY (no trailing slash). */
  get apiRoot(): string {
    return this.server.url;
  }

  /** Fault injection in platform-neutral terms (ops: send, edit, delete, typing, poll, read). */
  get faults() {
    return this.server.faults;
  }

  /** Scripts a fault (shorthand for `faults.failNext`). */
  failNext(fault: PlatformFault, target?: FaultTarget): void {
    this.server.faults.failNext(fault, target);
  }

  /** The bot a token belongs to. */
  botOfToken(token: string): FakeBotAccount | undefined {
    return this.bots.find((b) => b.token === token);
  }

  /** The update queue (`getUpdates` / webhook) of a bot. */
  queue(botId: number = FAKE_BOT.id): UpdateQueue {
    let q = this.#queues.get(botId);
    if (!q) {
      q = new UpdateQueue(1);
      q.answerAtOnce = this.#answerPollsAtOnce;
      this.#queues.set(botId, q);
    }
    return q;
  }

  /** Creates a chat. Private chats get the user's id; groups negative `-100…` ids. */
  createChat(input: {
    type: FakeChat["type"];
    title?: string;
    forum?: boolean;
    user?: FakeUser;
  }): FakeChat {
    const id =
      input.type === "private"
        ? (input.user?.id ?? this.#nextUserId++)
        : -Number(`100${this.#nextGroupId++}`);
    const chat: FakeChat = {
      id,
      type: input.type,
      ...(input.title !== undefined ? { title: input.title } : {}),
      isForum: input.forum === true && input.type === "supergroup",
      topics: new Map(),
      blocked: false,
    };
    this.chats.set(id, chat);
    return chat;
  }

  /**
   * Opens a forum topic; returns its `message_thread_id` (the id of its first message, or
   * `id` when given — pick one below `firstMessageId`).
   */
  createTopic(chatId: number, name: string, id?: number): number {
    const chat = this.chats.get(chatId);
    if (!chat?.isForum) throw new Error(`chat ${chatId} is not a forum`);
    if (id !== undefined) {
      chat.topics.set(id, { name, closed: false });
      return id;
    }
    const root = this.state.post({
      chat: String(chatId),
      text: `topic created: ${name}`,
      author: { id: "service", bot: false },
    });
    this.state.delete(root.message.id); // a service message: not part of what tests look at
    const threadId = Number(root.message.id);
    chat.topics.set(threadId, { name, closed: false });
    return threadId;
  }

  /** The Bot API `Chat` object of a chat. */
  chatJson(chat: FakeChat): Record<string, unknown> {
    return {
      id: chat.id,
      type: chat.type,
      ...(chat.type === "private"
        ? { first_name: chat.title ?? "User" }
        : { title: chat.title ?? `chat ${chat.id}` }),
      ...(chat.isForum ? { is_forum: true } : {}),
    };
  }

  /**
   * A person (or another bot) posts in a chat: the message becomes visible and an update is
   * queued for `botId`'s bot.
   */
  userPost(input: {
    chat: number;
    text: string;
    from?: FakeUser;
    thread?: number;
    entities?: unknown[];
    replyTo?: number;
    botId?: number;
    /** The update's `update_id` (default: the next one). */
    updateId?: number;
  }): { message: Record<string, unknown>; update: FakeUpdate } {
    const chat = this.chats.get(input.chat);
    if (!chat) throw new Error(`no chat ${input.chat}`);
    const from = input.from ?? ALICE;
    const posted = this.state.post({
      chat: String(chat.id),
      text: input.text,
      author: { id: String(from.id), name: from.first_name, bot: from.is_bot },
      ...(input.thread !== undefined ? { thread: String(input.thread) } : {}),
      ...(input.replyTo !== undefined ? { replyTo: String(input.replyTo) } : {}),
    });
    const id = Number(posted.message.id);
    const json: Record<string, unknown> = {
      message_id: id,
      date: Math.floor(posted.message.createdAt / 1_000),
      chat: this.chatJson(chat),
      ...(chat.type === "channel" ? { sender_chat: this.chatJson(chat) } : { from }),
      text: input.text,
      ...(input.entities ? { entities: input.entities } : {}),
      ...(input.thread !== undefined
        ? { message_thread_id: input.thread, is_topic_message: true }
        : {}),
      ...(input.replyTo !== undefined
        ? { reply_to_message: this.stored.get(input.replyTo)?.json }
        : {}),
    };
    this.stored.set(id, {
      json,
      chatId: chat.id,
      authorId: from.id,
      kind: "text",
      entities: input.entities ?? [],
      replyMarkup: undefined,
    });
    const kind = chat.type === "channel" ? "channel_post" : "message";
    const update = this.queue(input.botId).push({
      [kind]: json,
      ...(input.updateId !== undefined ? { update_id: input.updateId } : {}),
    });
    return { message: json, update };
  }

  /** Queues any update for a bot (a callback query, an edit, a malformed payload…). */
  pushUpdate(update: Record<string, unknown>, botId?: number): FakeUpdate {
    const pushed = this.queue(botId).push(update);
    this.pushedVerbatim.add(pushed);
    return pushed;
  }

  /** Queues the update of an earlier message again under a new `update_id` (a redelivery). */
  redeliver(messageId: number, botId?: number): FakeUpdate {
    const stored = this.stored.get(messageId);
    if (!stored) throw new Error(`no message ${messageId}`);
    const kind = this.chats.get(stored.chatId)?.type === "channel" ? "channel_post" : "message";
    return this.queue(botId).push({ [kind]: stored.json });
  }

  /** Delivers updates to a webhook handler from now on (as `setWebhook` does). */
  connectWebhook(webhook: FakeWebhook, botId?: number): void {
    this.queue(botId).setWebhook(webhook);
  }

  /** The next `n` sends are applied but answered `true` instead of a `Message` (CASES C12). */
  answerNextSendsWithoutMessageId(n = 1): void {
    this.#answerWithoutId += n;
  }

  /**
   * From now on every `n`-th send the fake accepts (applied: the message is visible) has its
   * connection reset before the answer — the client sees a reset (`maybe_sent`, CASES C01).
   * Sends refused by a limit or a bad request do not count. `0` stops it.
   */
  resetEveryNthAcceptedSend(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be an integer >= 0, got ${n}`);
    this.#resetEvery = n;
    this.#acceptedSends = 0;
  }

  /** @internal Counts an accepted send; whether its answer is to be lost. */
  takeResetAfterAccept(): boolean {
    if (this.#resetEvery === 0) return false;
    this.#acceptedSends += 1;
    return this.#acceptedSends % this.#resetEvery === 0;
  }

  /** @internal Takes one "answer without id" token. */
  takeAnswerWithoutId(): boolean {
    if (this.#answerWithoutId <= 0) return false;
    this.#answerWithoutId -= 1;
    return true;
  }

  /**
   * Visible messages of a chat (posting order, deleted ones excluded): a topic's only with
   * `thread`, top-level (General) ones only with `thread: null`, all without.
   */
  messages(
    chatId: number,
    options: { thread?: number | null; authorId?: number } = {},
  ): VisibleMessage[] {
    return this.state.messages({
      chat: String(chatId),
      ...(options.thread !== undefined
        ? { thread: options.thread === null ? null : String(options.thread) }
        : {}),
      ...(options.authorId !== undefined ? { authorId: String(options.authorId) } : {}),
    });
  }

  /** The stored Bot API `Message` of an id (entities, reply markup, thread, reply, media). */
  message(id: number | string): Record<string, unknown> | undefined {
    return this.stored.get(Number(id))?.json;
  }

  /** Stops the server (long polls are answered, connections closed). */
  async close(): Promise<void> {
    for (const q of this.#queues.values()) q.wakeAll();
    await this.server.close();
  }
}
