/**
 * The QA platform: a real chat platform on 127.0.0.1 — bot API (post, edit, delete, typing,
 * threads, lookup by client key, native streams), a resumable bot event stream (SSE), a web chat page for humans
 * and a small control API — with the fault injection of `@herald/plugin-sdk/testing`. Routes are
 * in `botApi.ts`, `streamApi.ts` and `webApi.ts` (data types in `platformTypes.ts`); this file holds
 * the platform's state and rules.
 *
 * @module
 */
import {
  FakePlatformServer,
  type PlatformFaults,
  type VisibleAuthor,
  type VisibleMessage,
  VisibleState,
} from "@herald/plugin-sdk/testing";
import type { QaWireButton, QaWireEvent, QaWireMessage } from "../../wire.ts";
import { registerBotApi } from "./botApi.ts";
import { registerFeatureApi } from "./featureApi.ts";
import type { QaBot, QaChat, QaPlatformCore } from "./platformTypes.ts";
import { QaExtras } from "./QaExtras.ts";
import { registerStreamApi } from "./streamApi.ts";
import { registerWebApi } from "./webApi.ts";

export type { QaBot, QaChat } from "./platformTypes.ts";

/** Options of {@link QaPlatform.start}. */
export type QaPlatformOptions = {
  /** Port on 127.0.0.1. @defaultValue 0 (any free port) */
  port?: number;
  /**
   * Native idempotency: a post whose `client_key` the chat has seen returns the first message
   * instead of posting again. Switchable at run time (`platform.state.idempotentKeys`).
   * @defaultValue true
   */
  idempotency?: boolean;
  /** Longest message text, in UTF-16 units; longer posts answer 400 `text_too_long`. @defaultValue 4000 */
  maxTextLength?: number;
  /** Bot accounts. @defaultValue one bot, {@link DEFAULT_QA_BOT} */
  bots?: readonly QaBot[];
  /** How long a typing indicator stays up without a refresh, in ms. @defaultValue 5_000 */
  typingLapseMs?: number;
  /** Delay before every bot API call is handled, in ms (a real round trip). @defaultValue 0 */
  latencyMs?: number;
  /**
   * Number messages and events from the boot time (epoch ms) instead of 1, so they never repeat
   * across restarts — like a real platform. Use it when the platform restarts against a bot
   * whose state store persists (its dedupe records and watermark would otherwise match the
   * reused numbers and swallow new messages). @defaultValue false
   */
  persistentIds?: boolean;
  /** The chat the web page opens by default (created as a direct chat). @defaultValue "web" */
  webChat?: string;
};

/** The bot account a QA platform has when none are given. */
export const DEFAULT_QA_BOT: QaBot = { id: "herald", name: "herald", token: "herald:qa-secret" };

/** The QA platform's longest message text by default, in UTF-16 units. */
export const QA_PLATFORM_MAX_TEXT = 4_000;

/**
 * A running QA platform.
 *
 * @example
 * const platform = await QaPlatform.start();
 * console.log(`web chat: ${platform.url}/`);
 * platform.faults.failNext({ kind: "reset_after_accept" }, { op: "send" });
 */
/**
 * The port given to {@link QaPlatform.start} is taken: the message names the option that
 * changes it ([H28] C51: README's bot on a taken 4610 printed a raw `EADDRINUSE` stack).
 * `code` stays `EADDRINUSE` for callers that check it.
 */
export class QaPortInUseError extends Error {
  readonly code = "EADDRINUSE";
  readonly port: number;
  constructor(port: number, cause: unknown) {
    super(
      `port ${port} on 127.0.0.1 is in use (another QA platform or herald demo?): stop it, or pass another port to QaPlatform.start({ port }) (0 = any free port)`,
      { cause },
    );
    this.name = "QaPortInUseError";
    this.port = port;
  }
}

export class QaPlatform implements QaPlatformCore {
  /** What the platform shows (messages, edits, deletions, typing). */
  readonly state: VisibleState;
  readonly #idBase: number;
  readonly server: FakePlatformServer;
  readonly maxTextLength: number;
  readonly webChat: string;
  readonly #bots = new Map<string, QaBot>();
  readonly #chats = new Map<string, QaChat>();
  readonly #events: QaWireEvent[] = [];
  readonly #eventListeners = new Set<() => void>();
  /** Files, buttons, reactions and ephemeral messages ([H23]). */
  readonly extras = new QaExtras();
  #pendingExtras: { fileIds?: string[]; buttons?: QaWireButton[] } | undefined;

  private constructor(options: QaPlatformOptions) {
    this.#idBase = options.persistentIds ? Date.now() : 0;
    this.state = new VisibleState({
      firstId: this.#idBase + 1,
      idempotentKeys: options.idempotency ?? true,
      ...(options.typingLapseMs !== undefined ? { typingLapseMs: options.typingLapseMs } : {}),
    });
    this.server = new FakePlatformServer({
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    });
    this.maxTextLength = options.maxTextLength ?? QA_PLATFORM_MAX_TEXT;
    this.webChat = options.webChat ?? "web";
    for (const bot of options.bots ?? [DEFAULT_QA_BOT]) this.#bots.set(bot.token, bot);
    this.createChat({ id: this.webChat, type: "direct", title: "web chat" });
    this.state.subscribe((change) => {
      if (change.type === "typing") return;
      // Files and buttons of a post belong to the message it creates (not to a duplicate).
      if (change.type === "created" && this.#pendingExtras) {
        this.extras.attach(change.message.id, this.#pendingExtras);
        this.#pendingExtras = undefined;
      }
      this.#append({
        seq: this.#idBase + this.#events.length + 1,
        type: `message.${change.type}`,
        message: this.toWire(change.message),
      });
    });
    registerBotApi(this);
    registerStreamApi(this);
    registerWebApi(this);
    registerFeatureApi(this);
  }

  /**
   * Starts a QA platform on 127.0.0.1.
   * @throws {@link QaPortInUseError} when `options.port` is taken.
   */
  static async start(options: QaPlatformOptions = {}): Promise<QaPlatform> {
    const platform = new QaPlatform(options);
    try {
      await platform.server.listen();
    } catch (error) {
      if ((error as { code?: string }).code === "EADDRINUSE")
        throw new QaPortInUseError(options.port ?? 0, error);
      throw error;
    }
    return platform;
  }

  /** Base URL, e.g. `http://127.0.0.1:41234`; the web chat page is at `/`. */
  get url(): string {
    return this.server.url;
  }

  /** Scripted faults and refused connections (platform-neutral terms). */
  get faults(): PlatformFaults {
    return this.server.faults;
  }

  /** Bot accounts by token. */
  botByToken(token: string): QaBot | undefined {
    return this.#bots.get(token);
  }

  /** Adds a bot account (a second bot for echo and loop tests). */
  addBot(bot: QaBot): QaBot {
    this.#bots.set(bot.token, bot);
    return bot;
  }

  /** Creates a chat (or returns the existing one with that id). @defaultValue a fresh id */
  createChat(chat: Partial<QaChat> & Pick<QaChat, "type">): QaChat {
    const id = chat.id ?? `chat-${this.#chats.size + 1}`;
    const existing = this.#chats.get(id);
    if (existing) return existing;
    const created: QaChat = { id, type: chat.type, ...(chat.title ? { title: chat.title } : {}) };
    this.#chats.set(id, created);
    return created;
  }

  chat(id: string): QaChat | undefined {
    return this.#chats.get(id);
  }

  /**
   * A person (or another bot) posts in a chat; bots see it on their event stream.
   * @throws Error when the chat or thread does not exist.
   */
  post(input: {
    chat: string;
    text: string;
    author?: Partial<VisibleAuthor>;
    thread?: string;
    replyTo?: string;
    metadata?: Record<string, unknown>;
  }): VisibleMessage {
    if (!this.#chats.has(input.chat)) throw new Error(`QA chat ${input.chat} does not exist`);
    if (input.thread !== undefined && !this.threadExists(input.chat, input.thread)) {
      throw new Error(`QA thread ${input.thread} does not exist in chat ${input.chat}`);
    }
    return this.state.post({
      chat: input.chat,
      text: input.text,
      author: { id: "user", name: "user", bot: false, ...input.author },
      ...(input.thread !== undefined ? { thread: input.thread } : {}),
      ...(input.replyTo !== undefined ? { replyTo: input.replyTo } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    }).message;
  }

  /**
   * Posts with files and buttons attached to the message the post creates ([H23]); a duplicate
   * (known client key) returns the first message unchanged.
   */
  postWithExtras<T>(extras: { fileIds?: string[]; buttons?: QaWireButton[] }, post: () => T): T {
    this.#pendingExtras = extras;
    try {
      return post();
    } finally {
      this.#pendingExtras = undefined;
    }
  }

  /**
   * A user adds or removes a reaction; bots get `reaction.added` / `reaction.removed` when it
   * changed anything. @returns whether it changed anything
   * @throws Error when the message does not exist.
   */
  react(input: {
    messageId: string;
    emoji: string;
    user: { id: string; name?: string; bot?: boolean };
    remove?: boolean;
  }): boolean {
    const m = this.state.get(input.messageId);
    if (!m || m.deleted) throw new Error(`QA message ${input.messageId} does not exist`);
    const changed = this.extras.react(
      m.id,
      m.chat,
      input.emoji,
      input.user.id,
      input.remove === true,
    );
    if (changed) {
      this.#append({
        seq: this.#idBase + this.#events.length + 1,
        type: input.remove ? "reaction.removed" : "reaction.added",
        message: this.toWire(m),
        reaction: {
          emoji: input.emoji,
          user: {
            id: input.user.id,
            is_bot: input.user.bot === true,
            ...(input.user.name ? { name: input.user.name } : {}),
          },
          at: Date.now(),
        },
      });
    }
    return changed;
  }

  /**
   * A user clicks a button; bots get `action.clicked` (a fresh click id per click).
   * @throws Error when the message or the button does not exist.
   */
  click(input: {
    messageId: string;
    actionId: string;
    user: { id: string; name?: string };
  }): QaWireEvent {
    const m = this.state.get(input.messageId);
    if (!m || m.deleted) throw new Error(`QA message ${input.messageId} does not exist`);
    const button = this.extras.buttonsOf(m.id)?.find((b) => b.id === input.actionId);
    if (!button) throw new Error(`QA message ${m.id} has no button ${input.actionId}`);
    return this.#append({
      seq: this.#idBase + this.#events.length + 1,
      type: "action.clicked",
      message: this.toWire(m),
      action: {
        id: this.extras.clickId(),
        action_id: input.actionId,
        ...(button.value !== undefined ? { value: button.value } : {}),
        user: {
          id: input.user.id,
          is_bot: false,
          ...(input.user.name ? { name: input.user.name } : {}),
        },
        at: Date.now(),
      },
    });
  }

  /**
   * Delivers an event again as a platform retry does (same content, new sequence number,
   * `redelivery` counting up).
   * @throws Error when no event has that sequence number.
   */
  redeliverEvent(seq: number): QaWireEvent {
    const first = this.#events.find((e) => e.seq === seq);
    if (!first) throw new Error(`QA event ${seq} does not exist`);
    return this.#append({
      ...first,
      seq: this.#idBase + this.#events.length + 1,
      redelivery: (first.redelivery ?? 0) + 1,
    });
  }

  /**
   * Delivers a message's `message.created` event again, as a platform retry does (same message
   * id, new sequence number, `redelivery` counting up).
   * @throws Error when the message was never delivered.
   */
  redeliver(messageId: string): QaWireEvent {
    const first = this.#events.find(
      (e) => e.type === "message.created" && e.message.id === messageId,
    );
    if (!first) throw new Error(`QA message ${messageId} was never delivered`);
    const count = this.#events.filter((e) => e.message.id === messageId && e.redelivery).length;
    return this.#append({
      ...first,
      seq: this.#idBase + this.#events.length + 1,
      redelivery: count + 1,
    });
  }

  /** Whether `thread` is a thread root (or a message) in `chat`. */
  threadExists(chat: string, thread: string): boolean {
    const root = this.state.get(thread);
    return root !== undefined && root.chat === chat;
  }

  /** Bot stream events after `since`, in order. */
  eventsAfter(since: number): QaWireEvent[] {
    return this.#events.slice(Math.max(0, since - this.#idBase));
  }

  /** The sequence number of the newest event (the base — 0 by default — when none). */
  get lastSeq(): number {
    return this.#idBase + this.#events.length;
  }

  /** Calls `listener` whenever an event is appended. @returns an unsubscribe function. */
  onEvent(listener: () => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /** A visible message in the platform's wire format. */
  toWire(m: VisibleMessage): QaWireMessage {
    return {
      id: m.id,
      chat_id: m.chat,
      chat_type: this.#chats.get(m.chat)?.type ?? "group",
      text: m.text,
      author: {
        id: m.author.id,
        is_bot: m.author.bot,
        ...(m.author.name ? { name: m.author.name } : {}),
      },
      created_at: m.createdAt,
      ...(m.thread !== undefined ? { thread_id: m.thread } : {}),
      ...(m.replyTo !== undefined ? { reply_to_id: m.replyTo } : {}),
      ...(m.key !== undefined ? { client_key: m.key } : {}),
      ...(m.metadata !== undefined ? { metadata: m.metadata as Record<string, unknown> } : {}),
      ...(m.editedAt !== undefined ? { edited_at: m.editedAt } : {}),
      ...(m.deleted ? { deleted: true } : {}),
      ...extrasOf(this.extras, m.id),
    };
  }

  /** Stops the server and closes every connection, event streams included. */
  close(): Promise<void> {
    return this.server.close();
  }

  #append(event: QaWireEvent): QaWireEvent {
    this.#events.push(event);
    for (const listener of this.#eventListeners) listener();
    return event;
  }
}

function extrasOf(extras: QaExtras, id: string): Partial<QaWireMessage> {
  const files = extras.filesOf(id);
  const buttons = extras.buttonsOf(id);
  const reactions = extras.reactionsOf(id);
  return {
    ...(files.length ? { files } : {}),
    ...(buttons ? { buttons } : {}),
    ...(reactions ? { reactions } : {}),
  };
}
