/**
 * What the fake Chat API stores: spaces, threads and messages, with Google Chat's naming
 * (`spaces/S`, `spaces/S/threads/T`, `spaces/S/messages/M`, client-assigned
 * `spaces/S/messages/client-…`) and its thread rules — every top-level message starts a thread
 * of its own; a reply names a thread (or a thread key) and a `messageReplyOption`. The texts,
 * edits and deletions live in the SDK's {@link VisibleState} (chat = space name, `thread` set
 * on replies only, so "top level" is the thread starters).
 *
 * @module
 */
import { VisibleState } from "@herald/plugin-sdk/testing";

/** A Chat user or app as messages name it. */
export type FakeChatUser = { name: string; displayName: string; type: "HUMAN" | "BOT" };

/** A space of the fake. */
export type FakeSpace = {
  name: string;
  spaceType: "SPACE" | "GROUP_CHAT" | "DIRECT_MESSAGE";
  displayName: string;
  /** The apps (user names) that are members (what `spaces.list` lists). @defaultValue every app */
  apps?: string[];
};

/** A message as the fake stores it, next to its visible text. */
export type FakeStoredMessage = {
  /** Id in the {@link VisibleState}. */
  id: string;
  /** `spaces/S/messages/M`. */
  name: string;
  space: string;
  /** `spaces/S/threads/T`. */
  thread: string;
  /** The first message of its thread (shown at the top level). */
  root: boolean;
  sender: FakeChatUser;
  clientAssignedMessageId?: string;
  requestId?: string;
  /** RFC 3339. */
  createTime: string;
  /** RFC 3339, set on edits. */
  lastUpdateTime?: string;
  cardsV2?: unknown[];
  fallbackText?: string;
  markupSyntax?: string;
  /** Name of the message it quotes. */
  quoted?: string;
  /** Users and apps it @mentions (its `annotations`). */
  mentions?: FakeChatUser[];
  /** The only user who sees it (`privateMessageViewer`, [H23] ephemeral). */
  privateViewer?: string;
};

/** Spaces, threads and messages of one fake. */
export class FakeChatStore {
  readonly state = new VisibleState();
  readonly spaces = new Map<string, FakeSpace>();
  /** Thread name → space, and thread key → thread name per space. */
  readonly threads = new Map<string, string>();
  readonly #threadKeys = new Map<string, string>();
  readonly #byName = new Map<string, FakeStoredMessage>();
  readonly #byRequest = new Map<string, FakeStoredMessage>();
  #seq = 0;

  /** Creates a space; a DM when `spaceType` is `DIRECT_MESSAGE`. */
  createSpace(
    spaceType: FakeSpace["spaceType"],
    displayName = "a space",
    apps?: string[],
  ): FakeSpace {
    this.#seq += 1;
    const space: FakeSpace = {
      name: `spaces/AAA${this.#seq}x`,
      spaceType,
      displayName,
      ...(apps ? { apps } : {}),
    };
    this.spaces.set(space.name, space);
    return space;
  }

  /** A new thread name in `space`. */
  newThread(space: string): string {
    this.#seq += 1;
    const name = `${space}/threads/T${this.#seq}t`;
    this.threads.set(name, space);
    return name;
  }

  /** The thread of a thread key, made on first use. */
  threadOfKey(space: string, key: string): string {
    const k = `${space}\n${key}`;
    let name = this.#threadKeys.get(k);
    if (!name) {
      name = this.newThread(space);
      this.#threadKeys.set(k, name);
    }
    return name;
  }

  /** Stores a message (a reply when `thread` already has messages). */
  add(input: {
    space: string;
    thread: string;
    sender: FakeChatUser;
    text: string;
    clientAssignedMessageId?: string;
    requestId?: string;
    cardsV2?: unknown[];
    fallbackText?: string;
    markupSyntax?: string;
    quoted?: string;
    /** When it was written (epoch ms), for history from a past outage. @defaultValue now */
    atMs?: number;
    mentions?: FakeChatUser[];
    privateViewer?: string;
  }): FakeStoredMessage {
    const root = !this.messages({ space: input.space, includeDeleted: true }).some(
      (m) => m.thread === input.thread,
    );
    const visible = this.state.post({
      chat: input.space,
      text: input.text,
      author: {
        id: input.sender.name,
        name: input.sender.displayName,
        bot: input.sender.type === "BOT",
      },
      ...(root ? {} : { thread: input.thread }),
      ...(input.quoted ? { replyTo: input.quoted } : {}),
      ...(input.requestId ? { key: input.requestId } : {}),
    }).message;
    this.#seq += 1;
    const stored: FakeStoredMessage = {
      id: visible.id,
      name: `${input.space}/messages/M${visible.id}.${this.#seq}`,
      space: input.space,
      thread: input.thread,
      root,
      sender: input.sender,
      createTime: new Date(input.atMs ?? visible.createdAt).toISOString(),
      ...(input.mentions?.length ? { mentions: input.mentions } : {}),
      ...(input.clientAssignedMessageId
        ? { clientAssignedMessageId: input.clientAssignedMessageId }
        : {}),
      ...(input.requestId ? { requestId: input.requestId } : {}),
      ...(input.cardsV2 ? { cardsV2: input.cardsV2 } : {}),
      ...(input.fallbackText ? { fallbackText: input.fallbackText } : {}),
      ...(input.markupSyntax ? { markupSyntax: input.markupSyntax } : {}),
      ...(input.quoted ? { quoted: input.quoted } : {}),
      ...(input.privateViewer ? { privateViewer: input.privateViewer } : {}),
    };
    this.#byName.set(stored.name, stored);
    if (stored.clientAssignedMessageId) {
      this.#byName.set(`${stored.space}/messages/${stored.clientAssignedMessageId}`, stored);
    }
    if (stored.requestId) this.#byRequest.set(`${stored.space}\n${stored.requestId}`, stored);
    return stored;
  }

  /** A message by its name or client-assigned name (deleted ones included). */
  find(name: string): FakeStoredMessage | undefined {
    return this.#byName.get(name);
  }

  /** A live (not deleted) message by name. */
  live(name: string): FakeStoredMessage | undefined {
    const m = this.#byName.get(name);
    return m && !this.state.get(m.id)?.deleted ? m : undefined;
  }

  /** The message an earlier create with `requestId` made in `space`. */
  byRequest(space: string, requestId: string): FakeStoredMessage | undefined {
    return this.#byRequest.get(`${space}\n${requestId}`);
  }

  /** Messages in creation order. */
  messages(filter: { space?: string; includeDeleted?: boolean } = {}): FakeStoredMessage[] {
    const seen = new Set<FakeStoredMessage>();
    const out: FakeStoredMessage[] = [];
    for (const m of this.#byName.values()) {
      if (seen.has(m)) continue;
      seen.add(m);
      if (filter.space !== undefined && m.space !== filter.space) continue;
      if (!filter.includeDeleted && this.state.get(m.id)?.deleted) continue;
      out.push(m);
    }
    return out.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** The current text of a message. */
  textOf(m: FakeStoredMessage): string {
    return this.state.get(m.id)?.text ?? "";
  }

  /** A space as events and `spaces.list` show it (`Schema$Space`). */
  spaceJson(name: string): Record<string, unknown> {
    const space = this.spaces.get(name);
    const dm = space?.spaceType === "DIRECT_MESSAGE";
    return {
      name,
      type: dm ? "DM" : "ROOM",
      spaceType: space?.spaceType ?? "SPACE",
      displayName: space?.displayName ?? "",
      ...(dm ? { singleUserBotDm: true } : {}),
    };
  }

  /** The message as the Chat API returns it (`Schema$Message`). */
  toJson(m: FakeStoredMessage): Record<string, unknown> {
    const space = this.spaces.get(m.space);
    const text = this.textOf(m);
    return {
      name: m.name,
      sender: m.sender,
      createTime: m.createTime,
      ...(m.lastUpdateTime ? { lastUpdateTime: m.lastUpdateTime } : {}),
      text,
      argumentText: text,
      ...(m.mentions
        ? {
            annotations: m.mentions.map((user) => ({
              type: "USER_MENTION",
              startIndex: 0,
              length: user.displayName.length + 1,
              userMention: { user, type: "MENTION" },
            })),
          }
        : {}),
      threadReply: !m.root,
      thread: { name: m.thread },
      space: {
        name: m.space,
        ...(space
          ? {
              spaceType: space.spaceType,
              type: space.spaceType === "DIRECT_MESSAGE" ? "DM" : "ROOM",
            }
          : {}),
      },
      ...(m.clientAssignedMessageId ? { clientAssignedMessageId: m.clientAssignedMessageId } : {}),
      ...(m.cardsV2 ? { cardsV2: m.cardsV2 } : {}),
      ...(m.fallbackText ? { fallbackText: m.fallbackText } : {}),
      ...(m.quoted ? { quotedMessageMetadata: { name: m.quoted } } : {}),
      ...(m.privateViewer ? { privateMessageViewer: { name: m.privateViewer } } : {}),
    };
  }
}
