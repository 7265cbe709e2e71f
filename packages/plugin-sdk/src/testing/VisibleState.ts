/**
 * What a chat platform shows: messages per chat and thread with their current text and edit
 * history, deletions and typing indicators. Fake platform servers keep their state here so
 * tests assert **visible outcomes** ("one message with the final text"), not API calls.
 *
 * @module
 */

/** Who posted a message. */
export type VisibleAuthor = {
  /** Platform user id. */
  id: string;
  name?: string;
  /** The platform marks the author as a bot. */
  bot: boolean;
};

/** A message as the platform shows it. Plain JSON; the state hands out copies. */
export type VisibleMessage = {
  /** Platform message id (unique per platform, increasing). */
  id: string;
  chat: string;
  /** Thread (reply chain / topic) inside the chat. */
  thread?: string;
  /** Message this one replies to. */
  replyTo?: string;
  /** Current text. */
  text: string;
  author: VisibleAuthor;
  /** Client idempotency key it was posted with (Discord nonce, Matrix txnId, QA client key). */
  key?: string;
  /** Platform metadata attached by the client (Slack `metadata`, Matrix extra content). */
  metadata?: unknown;
  /** Every text the message showed, oldest first; the last one is `text`. */
  history: string[];
  deleted: boolean;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms of the last edit. */
  editedAt?: number;
  /** Epoch ms of the deletion. */
  deletedAt?: number;
};

/** What a post asks for. */
export type PostInput = {
  chat: string;
  thread?: string;
  replyTo?: string;
  text: string;
  author: VisibleAuthor;
  key?: string;
  metadata?: unknown;
};

/** A change of the visible state, in order (fakes turn these into inbound events). */
export type VisibleChange =
  | { type: "created" | "edited" | "deleted"; message: VisibleMessage }
  | { type: "typing"; chat: string; thread?: string; userId: string; on: boolean };

/** Options of {@link VisibleState}. */
export type VisibleStateOptions = {
  /** Epoch-ms clock. @defaultValue Date.now */
  clock?: () => number;
  /**
   * Deduplicate posts by client key within a chat: a second post with a known key returns the
   * first message (`duplicate: true`) — native idempotency. Switchable at run time.
   * @defaultValue false
   */
  idempotentKeys?: boolean;
  /**
   * The platform's dedupe window for client keys, in ms: a key posted again later than this
   * after the first post makes a new message (Discord enforces a nonce for a few minutes).
   * Switchable at run time. @defaultValue undefined (keys never expire)
   */
  keyTtlMs?: number;
  /** How long a shown typing indicator stays up without a refresh, in ms. @defaultValue 5_000 */
  typingLapseMs?: number;
  /** First message id; ids are decimal strings counting up from it. @defaultValue 1 */
  firstId?: number;
};

/** Filter of {@link VisibleState.messages}. */
export type MessageFilter = {
  chat?: string;
  /** Messages of this thread only; `null` = top-level messages only. */
  thread?: string | null;
  /** Include deleted messages. @defaultValue false */
  includeDeleted?: boolean;
  /** Messages of this author id only. */
  authorId?: string;
};

/**
 * The visible state of a fake platform.
 *
 * @example
 * const state = new VisibleState({ idempotentKeys: true });
 * state.post({ chat: "c1", text: "hi", author: { id: "bot", bot: true }, key: "k#0" });
 * state.messages({ chat: "c1" }).map((m) => m.text); // ["hi"]
 */
export class VisibleState {
  /** Whether posts are deduplicated by client key (see {@link VisibleStateOptions}). */
  idempotentKeys: boolean;
  /** The dedupe window of client keys in ms (see {@link VisibleStateOptions}); undefined = forever. */
  keyTtlMs: number | undefined;
  readonly #messages: VisibleMessage[] = [];
  readonly #typingUntil = new Map<string, number>();
  readonly #listeners = new Set<(change: VisibleChange) => void>();
  readonly #clock: () => number;
  readonly #typingLapseMs: number;
  #nextId: number;

  constructor(options: VisibleStateOptions = {}) {
    this.idempotentKeys = options.idempotentKeys ?? false;
    this.keyTtlMs = options.keyTtlMs;
    this.#clock = options.clock ?? Date.now;
    this.#typingLapseMs = options.typingLapseMs ?? 5_000;
    this.#nextId = options.firstId ?? 1;
  }

  /**
   * Posts a message; with {@link idempotentKeys}, a key posted in the same chat within
   * {@link keyTtlMs} of its first post returns that first message.
   */
  post(input: PostInput): { message: VisibleMessage; duplicate: boolean } {
    if (this.idempotentKeys && input.key !== undefined) {
      const now = this.#clock();
      const ttl = this.keyTtlMs;
      const existing = this.#messages.find(
        (m) =>
          m.chat === input.chat &&
          m.key === input.key &&
          (ttl === undefined || now - m.createdAt < ttl),
      );
      if (existing) return { message: copy(existing), duplicate: true };
    }
    const text = input.text;
    const message: VisibleMessage = {
      id: String(this.#nextId++),
      chat: input.chat,
      text,
      author: { ...input.author },
      history: [text],
      deleted: false,
      createdAt: this.#clock(),
      ...(input.thread !== undefined ? { thread: input.thread } : {}),
      ...(input.replyTo !== undefined ? { replyTo: input.replyTo } : {}),
      ...(input.key !== undefined ? { key: input.key } : {}),
      ...(input.metadata !== undefined ? { metadata: structuredClone(input.metadata) } : {}),
    };
    this.#messages.push(message);
    // A message ends the author's typing indicator, as on real platforms.
    this.#typingUntil.delete(typingKey(input.chat, input.thread, input.author.id));
    this.#emit({ type: "created", message: copy(message) });
    return { message: copy(message), duplicate: false };
  }

  /**
   * Replaces a message's text. Identical text is `not_modified` (no change recorded).
   * @returns `not_found` when the message does not exist or was deleted.
   */
  edit(
    id: string,
    text: string,
    metadata?: unknown,
  ): { status: "edited" | "not_modified"; message: VisibleMessage } | { status: "not_found" } {
    const m = this.#live(id);
    if (!m) return { status: "not_found" };
    if (m.text === text) return { status: "not_modified", message: copy(m) };
    m.text = text;
    m.history.push(text);
    m.editedAt = this.#clock();
    if (metadata !== undefined) m.metadata = structuredClone(metadata);
    this.#emit({ type: "edited", message: copy(m) });
    return { status: "edited", message: copy(m) };
  }

  /** Deletes a message. @returns `not_found` when it does not exist or was already deleted. */
  delete(id: string): { status: "deleted"; message: VisibleMessage } | { status: "not_found" } {
    const m = this.#live(id);
    if (!m) return { status: "not_found" };
    m.deleted = true;
    m.deletedAt = this.#clock();
    this.#emit({ type: "deleted", message: copy(m) });
    return { status: "deleted", message: copy(m) };
  }

  /** Shows (`on`) or hides a user's typing indicator; shown, it lapses after `typingLapseMs`. */
  typing(chat: string, userId: string, on: boolean, thread?: string): void {
    const key = typingKey(chat, thread, userId);
    if (on) this.#typingUntil.set(key, this.#clock() + this.#typingLapseMs);
    else this.#typingUntil.delete(key);
    this.#emit({ type: "typing", chat, userId, on, ...(thread !== undefined ? { thread } : {}) });
  }

  /** Whether anyone (or `userId`) shows a typing indicator in the chat (and thread) now. */
  isTyping(chat: string, options: { thread?: string; userId?: string } = {}): boolean {
    const now = this.#clock();
    for (const [key, until] of this.#typingUntil) {
      const [c, t, u] = JSON.parse(key) as [string, string | null, string];
      if (c !== chat || until <= now) continue;
      if (options.thread !== undefined && t !== options.thread) continue;
      if (options.userId !== undefined && u !== options.userId) continue;
      return true;
    }
    return false;
  }

  /** Messages in posting order (copies), by default without deleted ones. */
  messages(filter: MessageFilter = {}): VisibleMessage[] {
    return this.#messages
      .filter(
        (m) =>
          (filter.includeDeleted || !m.deleted) &&
          (filter.chat === undefined || m.chat === filter.chat) &&
          (filter.thread === undefined ||
            (filter.thread === null ? m.thread === undefined : m.thread === filter.thread)) &&
          (filter.authorId === undefined || m.author.id === filter.authorId),
      )
      .map(copy);
  }

  /** One message by id (deleted ones included), or undefined. */
  get(id: string): VisibleMessage | undefined {
    const m = this.#messages.find((x) => x.id === id);
    return m ? copy(m) : undefined;
  }

  /** Messages posted with a client key (deleted ones excluded), in posting order. */
  byKey(key: string, chat?: string): VisibleMessage[] {
    return this.#messages
      .filter((m) => !m.deleted && m.key === key && (chat === undefined || m.chat === chat))
      .map(copy);
  }

  /** Subscribes to changes. @returns an unsubscribe function. */
  subscribe(listener: (change: VisibleChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets every message and indicator (ids keep counting up). */
  reset(): void {
    this.#messages.length = 0;
    this.#typingUntil.clear();
  }

  #live(id: string): VisibleMessage | undefined {
    return this.#messages.find((m) => m.id === id && !m.deleted);
  }

  #emit(change: VisibleChange): void {
    for (const l of this.#listeners) l(change);
  }
}

function typingKey(chat: string, thread: string | undefined, userId: string): string {
  return JSON.stringify([chat, thread ?? null, userId]);
}

function copy(m: VisibleMessage): VisibleMessage {
  return structuredClone(m);
}
