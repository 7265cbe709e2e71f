/**
 * The data types of the fake Slack (bots, users, channels, messages, files, streams), and
 * {@link FakeSlackCore}: the part of a `FakeSlack` its method modules (`fakeMethods.ts`,
 * `fakeReads.ts`, `fakeStreams.ts`, `fakeFiles.ts`) use. They take this interface, not the
 * class, so no module of the fake imports `FakeSlack.ts` back; this module imports nothing of
 * the fake.
 *
 * @module
 */
import type { FakePlatformServer, VisibleState } from "@herald/plugin-sdk/testing";

/** A bot (app installation) the fake knows; its token authorizes calls. */
export type FakeSlackBot = {
  token: string;
  /** The app's signing secret: the fake signs its Events API deliveries with it. */
  signingSecret: string;
  userId: string;
  botId: string;
  appId: string;
  teamId: string;
  name: string;
};

/** A person on the fake. */
export type FakeSlackUser = { id: string; name: string; teamId: string };

/** A conversation on the fake. */
export type FakeChannel = {
  id: string;
  /** `im` is a DM (`D…`), the others are channels (`C…`). */
  type: "channel" | "im";
  name?: string;
  archived: boolean;
  /**
   * The bot user ids that are members (what `users.conversations` lists for a bot).
   * @defaultValue every bot (undefined)
   */
  members?: Set<string>;
};

/** What the fake keeps per message besides its visible text (Slack's message object). */
export type FakeSlackMessage = {
  channel: string;
  ts: string;
  /** The thread root's ts, for replies. */
  threadTs?: string;
  /** The author's user id. */
  user: string;
  botId?: string;
  appId?: string;
  teamId: string;
  metadata?: { event_type: string; event_payload?: Record<string, unknown> };
  /** `reply_broadcast`: also shown in the channel. */
  broadcast: boolean;
  /** Ids of the files this message shares. */
  files: string[];
  /** The message's blocks, as posted. */
  blocks?: unknown[];
  /** The visible state's id. */
  visibleId: string;
};

/** A `chat.postMessage` (or stream start) as the fake received it, for thread assertions (C25). */
export type FakePostRecord = {
  method: string;
  channel: string;
  threadTs?: string;
  replyBroadcast: boolean;
  /** How the call ended: `ok`, `ok_hidden` (accepted, not shown), or Slack's error code. */
  outcome: string;
  /** When it arrived (epoch ms). */
  at: number;
};

/** A file on the fake. */
export type FakeFile = {
  id: string;
  name: string;
  title?: string;
  /** The uploaded bytes (undefined until uploaded). */
  bytes?: Uint8Array;
  /** Where it was shared: channel → message ts. */
  shares: Record<string, string>;
};

/** A stream's server-side state. */
export type FakeStream = { startedAt: number; open: boolean };

/**
 * What the method modules use of a `FakeSlack` (which implements it): its server and visible
 * state, the bots, channels, messages, files and streams, the history limits, and the methods
 * that store and render messages. See `FakeSlack` for each member.
 */
export interface FakeSlackCore {
  readonly server: FakePlatformServer;
  readonly state: VisibleState;
  readonly bots: readonly FakeSlackBot[];
  readonly channels: Map<string, FakeChannel>;
  /** Messages by `channel:ts`. */
  readonly messagesByRef: Map<string, FakeSlackMessage>;
  readonly posts: FakePostRecord[];
  readonly files: Map<string, FakeFile>;
  /** Native streams by `channel:ts`. */
  readonly streams: Map<string, FakeStream>;
  /** Least time between two history reads of one token, per method, in ms. */
  readonly historyIntervalMs: number;
  /** Most messages per history page. */
  readonly historyPageLimit: number;
  /** How long a stream stays open, in ms. */
  readonly streamLifetimeMs: number;
  /** Bot posts allowed per channel per second. @defaultValue undefined (no limit) */
  readonly postsPerChannelPerSecond: number | undefined;
  /** Posts answered 429 by the per-channel limit. */
  postsRateLimited: number;
  /**
   * Bot posts shown per channel per second; a faster post is answered `ok: true` but neither
   * stored nor shown. @defaultValue undefined (every accepted post is shown)
   */
  readonly postsShownPerChannelPerSecond: number | undefined;
  /** Posts accepted (`ok: true`) but not shown, by {@link postsShownPerChannelPerSecond}. */
  readonly postsHidden: Array<{ channel: string; ts: string; text: string }>;
  /** Shown post times (epoch ms) per channel, for the shown-per-second window. */
  readonly shownTimes: Map<string, number[]>;
  /** Accepted post times (epoch ms) per channel, for the per-second limit. */
  readonly postTimes: Map<string, number[]>;
  botOfToken(token: string | undefined): FakeSlackBot | undefined;
  /** Stores a message and makes it visible. */
  addMessage(input: {
    channel: string;
    text: string;
    user: string;
    bot?: FakeSlackBot;
    threadTs?: string;
    metadata?: FakeSlackMessage["metadata"];
    broadcast?: boolean;
    name?: string;
    replyTo?: string;
    blocks?: unknown[];
  }): FakeSlackMessage;
  /** The stored message of `channel` + `ts`, deleted ones excluded. */
  message(channel: string, ts: string): FakeSlackMessage | undefined;
  /** Slack's JSON of a stored message. */
  messageJson(m: FakeSlackMessage, withMetadata: boolean): Record<string, unknown>;
}
