/**
 * The data types of the fake Telegram (bots, users, chats, stored messages), and
 * {@link FakeTelegramCore}: the part of a `FakeTelegram` its Bot API methods (`fakeMethods.ts`)
 * use. They take this interface, not the class, so no module of the fake imports
 * `FakeTelegram.ts` back; this module imports nothing of the fake.
 *
 * @module
 */
import type { FakePlatformServer, VisibleState } from "@herald/plugin-sdk/testing";

/** A bot account the fake knows (its token authorizes calls). */
export type FakeBotAccount = { id: number; username: string; firstName: string; token: string };

/** A Telegram user (Bot API `User`). */
export type FakeUser = {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
};

/** A chat on the fake. */
export type FakeChat = {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
  /** A supergroup with forum topics. */
  isForum: boolean;
  /** Open topics by `message_thread_id`. */
  topics: Map<number, { name: string; closed: boolean }>;
  /** A private chat whose user blocked the bot (every send answers 403). */
  blocked: boolean;
};

/** What the fake stores per message besides its visible text. */
export type FakeStoredMessage = {
  /** The Bot API `Message` object as it was returned and delivered. */
  json: Record<string, unknown>;
  chatId: number;
  authorId: number;
  /** `text` messages are edited with `editMessageText`, `media` with `editMessageCaption`. */
  kind: "text" | "media";
  entities: unknown[];
  replyMarkup: unknown;
};

/** What the methods use of a bot's update queue (`UpdateQueue`, see `fakeUpdates.ts`). */
export interface FakeUpdateSource {
  /** Whether a webhook is set (then `getUpdates` answers 409). */
  readonly webhookSet: boolean;
  /** What the bot registered with `setWebhook`. */
  registered: { url: string; secretToken?: string } | undefined;
  /** `getUpdates`: confirms below `offset`, then answers or waits up to `timeoutSeconds`. */
  getUpdates(request: {
    offset?: number;
    limit?: number;
    timeoutSeconds?: number;
  }): Promise<unknown[]>;
  /** Removes the webhook (`deleteWebhook`). */
  deleteWebhook(): void;
}

/**
 * What the Bot API methods use of a `FakeTelegram` (which implements it): its server and
 * visible state, chats and stored messages, the flood limits, the update queues, and the
 * one-shot send faults. See `FakeTelegram` for each member.
 */
export interface FakeTelegramCore {
  readonly server: FakePlatformServer;
  readonly state: VisibleState;
  readonly chats: Map<number, FakeChat>;
  /** Stored messages by `message_id`. */
  readonly stored: Map<number, FakeStoredMessage>;
  /** Updates a test pushed verbatim (its words, not the fake's: not checked against the spec). */
  readonly pushedVerbatim: WeakSet<object>;
  /** The flood limits in force (`SendLimiter`): `check` throws the 429 or records the send. */
  readonly limiter: { check(botId: number, chat: FakeChat): void } | undefined;
  botOfToken(token: string): FakeBotAccount | undefined;
  /** The Bot API `Chat` object of a chat. */
  chatJson(chat: FakeChat): Record<string, unknown>;
  /** The update queue (`getUpdates` / webhook) of a bot. */
  queue(botId: number): FakeUpdateSource;
  /** Counts an accepted send; whether its answer is to be lost. */
  takeResetAfterAccept(): boolean;
  /** Takes one "answer without id" token. */
  takeAnswerWithoutId(): boolean;
}
