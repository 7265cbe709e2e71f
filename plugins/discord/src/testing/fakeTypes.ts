/**
 * The data types of the fake Discord, and {@link FakeDiscordCore}: the part of a `FakeDiscord`
 * its REST routes (`fakeRest.ts`), gateway (`fakeGateway.ts`) and body checks
 * (`fakeValidate.ts`) use. They take this interface, not the class, so no module of the fake
 * imports `FakeDiscord.ts` back; this module imports nothing of the fake.
 *
 * @module
 */
import type { FakePlatformServer, VisibleState } from "@herald/plugin-sdk/testing";

/** A bot account the fake knows (its token authorizes calls). */
export type FakeBotAccount = {
  id: string;
  username: string;
  token: string;
  /** The application id (for most bots the same as the user id). */
  applicationId: string;
};

/** A Discord user. */
export type FakeUser = { id: string; username: string; bot?: boolean };

/**
 * A channel on the fake: guild text, DM, thread; or one that takes no messages itself — a forum
 * or media channel (only posts, which are threads) or a category.
 */
export type FakeChannel = {
  id: string;
  type: "text" | "dm" | "thread" | "forum" | "media" | "category";
  name: string;
  guildId?: string;
  /** A thread's parent channel. */
  parentId?: string;
  /** Bots (by user id) that may not send here (50013). */
  denied: Set<string>;
  /** A DM's bot (the other side is a person). @defaultValue the first bot */
  botId?: string;
};

/** What the fake stores per message besides its visible text. */
export type FakeStoredMessage = {
  /** The message object as returned and dispatched. */
  json: Record<string, unknown>;
  channelId: string;
  authorId: string;
  embeds: unknown[];
  files: Array<{ name: string; size: number }>;
  /** `message_reference.message_id`, when it had one. */
  referenceId?: string;
  nonce?: string;
};

/** Per-channel message buckets (Discord's 5 per 5 s). */
export type FakeBucketLimits = { limit: number; windowMs: number };

/** A message change the gateway dispatches (MESSAGE_CREATE / UPDATE / DELETE). */
export type FakeMessageEvent =
  | { type: "create" | "update" | "delete"; message: FakeStoredMessage }
  | { type: "channel"; channel: FakeChannel };

/**
 * What the fake's routes, gateway and checks use of a `FakeDiscord` (which implements it):
 * its server and state, the bots, channels and stored messages, and the methods that change
 * them. See `FakeDiscord` for each member.
 */
export interface FakeDiscordCore {
  readonly server: FakePlatformServer;
  readonly state: VisibleState;
  readonly bots: readonly FakeBotAccount[];
  readonly channels: Map<string, FakeChannel>;
  readonly stored: Map<string, FakeStoredMessage>;
  readonly buckets: FakeBucketLimits;
  readonly guildId: string;
  readonly clock: () => number;
  /** Where `GET /gateway/bot` points (the gateway sets it when it listens). */
  gatewayUrl: string;
  /** The bot an `Authorization: Bot <token>` header names. */
  botOfToken(authorization: string | undefined): FakeBotAccount | undefined;
  /** Posts a message as `author`, as Discord stores and dispatches it. */
  post(input: {
    channelId: string;
    author: FakeUser;
    text: string;
    nonce?: string;
    embeds?: unknown[];
    files?: Array<{ name: string; size: number }>;
    referenceId?: string;
  }): { message: FakeStoredMessage; duplicate: boolean };
  /** Edits a stored message. @returns undefined when it is not there (or deleted). */
  edit(id: string, text: string, embeds?: unknown[]): FakeStoredMessage | undefined;
  /** Deletes a stored message. @returns false when it was not there (or already deleted). */
  delete(id: string): boolean;
  /** Starts a thread from message `messageId` (the thread's id is the message's). */
  startThread(messageId: string, name?: string): FakeChannel;
  /** Subscribes to message changes. @returns an unsubscribe function. */
  onMessage(listener: (event: FakeMessageEvent) => void): () => void;
}
