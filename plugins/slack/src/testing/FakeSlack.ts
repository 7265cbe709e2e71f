/**
 * A fake Slack Web API on 127.0.0.1 for tests: the real `WebClient` talks to it through
 * `slackApiUrl`. Built on the SDK's `FakePlatformServer` (scripted faults: statuses, 429 with
 * `Retry-After`, resets before / after the call was applied, delays, refused connections) and
 * `VisibleState` (what each channel and thread shows). It answers like Slack where herald depends
 * on it: `ok: false` bodies with Slack's codes, `ts` ids per channel, threads by the root's `ts`
 * (a `thread_ts` that is not a root is refused), message `metadata` stored and returned by
 * history only with `include_all_metadata`, history read limits (15 a page, one read per
 * `historyIntervalMs` per token and method, else 429), an optional post limit per channel
 * (`postsPerChannelPerSecond`, else 429), an optional burst that is accepted but not shown
 * (`postsShownPerChannelPerSecond`), bots editing only their own messages.
 *
 * @example
 * const slack = await FakeSlack.start();
 * const channel = slack.createChannel({ name: "general" });
 * // point the adapter at slack.apiUrl with FAKE_BOT.token
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
import { EventSender } from "./fakeEvents.ts";
import { registerFileMethods } from "./fakeFiles.ts";
import { registerChatMethods } from "./fakeMethods.ts";
import { registerReadMethods } from "./fakeReads.ts";
import { registerStreamMethods } from "./fakeStreams.ts";
import type {
  FakeChannel,
  FakeFile,
  FakePostRecord,
  FakeSlackBot,
  FakeSlackCore,
  FakeSlackMessage,
  FakeSlackUser,
  FakeStream,
} from "./fakeTypes.ts";
import { slackErrorBody } from "./fakeWire.ts";

export type {
  FakeChannel,
  FakePostRecord,
  FakeSlackBot,
  FakeSlackMessage,
  FakeSlackUser,
} from "./fakeTypes.ts";

/** The default bot. */
export const FAKE_BOT: FakeSlackBot = {
  token: "xoxb-1000000001-herald-test-bot-token-Zq7",
  signingSecret: "8f742231b10e8888abcd99yyyzzz85a5",
  userId: "UBOT00001",
  botId: "BBOT00001",
  appId: "ABOT00001",
  teamId: "T00000001",
  name: "herald",
};

/** Another bot in the same workspace (another app). */
export const OTHER_FAKE_BOT: FakeSlackBot = {
  token: "xoxb-1000000002-other-test-bot-token-Lm3",
  signingSecret: "0ther0ther0ther0ther0ther0ther00",
  userId: "UOTHER001",
  botId: "BOTHER001",
  appId: "AOTHER001",
  teamId: "T00000001",
  name: "otherbot",
};

/** A second install in the same workspace: the second account of the two-accounts test. */
export const SECOND_FAKE_BOT: FakeSlackBot = {
  token: "xoxb-1000000003-second-test-bot-token-Qz9",
  signingSecret: "5ec0nd5ec0nd5ec0nd5ec0nd5ec0nd55",
  userId: "USECOND01",
  botId: "BSECOND01",
  appId: "ASECOND01",
  teamId: "T00000001",
  name: "second",
};

/** The default human. */
export const ALICE: FakeSlackUser = { id: "UALICE001", name: "alice", teamId: "T00000001" };

/** Options of {@link FakeSlack.start}. */
export type FakeSlackOptions = {
  /** Bots whose tokens are accepted. @defaultValue [FAKE_BOT, OTHER_FAKE_BOT] */
  bots?: FakeSlackBot[];
  /**
   * Least time between two history reads (`conversations.history` / `replies`) of one token,
   * per method, in ms; a faster read answers 429 with `Retry-After`. @defaultValue 0
   */
  historyIntervalMs?: number;
  /** Most messages per history page (Slack: 15 for apps outside the Marketplace). @defaultValue 15 */
  historyPageLimit?: number;
  /** How long a native stream stays open server-side, in ms (Slack: about 5 minutes). @defaultValue 300_000 */
  streamLifetimeMs?: number;
  /**
   * Bot posts (`chat.postMessage`, stream starts) allowed per channel per second; a faster post
   * answers HTTP 429 `ratelimited` with `Retry-After` and is not applied (Slack: about one a
   * second per channel, PLATFORMS.md §3b). @defaultValue no limit
   */
  postsPerChannelPerSecond?: number;
  /**
   * Bot posts **shown** per channel in any second; a post over it is answered `ok: true` with a
   * `ts` but is neither stored nor shown (not in the channel, not in history): Slack's "Posting
   * messages — 1 per second. Short bursts >1 allowed. If you attempt bursts, there is no
   * guarantee that messages will be stored or displayed to users" (api.slack.com/apis/rate-limits,
   * PLATFORMS.md §8–9, CASES C44). Hidden posts are listed in `postsHidden`.
   * @defaultValue no limit (every accepted post is shown)
   */
  postsShownPerChannelPerSecond?: number;
  /** Port on 127.0.0.1. @defaultValue 0 (any free port) */
  port?: number;
  /** Delay before every call, in ms. @defaultValue 0 */
  latencyMs?: number;
};

/** The fake Slack Web API server. */
export class FakeSlack implements FakeSlackCore {
  readonly server: FakePlatformServer;
  readonly state = new VisibleState({ firstId: 1 });
  readonly bots: readonly FakeSlackBot[];
  readonly channels = new Map<string, FakeChannel>();
  /** Messages by `channel:ts`. */
  readonly messagesByRef = new Map<string, FakeSlackMessage>();
  /** Every post the fake received, in order (thread placement checks, C25). */
  readonly posts: FakePostRecord[] = [];
  /** The Events API side: webhooks per bot, signed deliveries. */
  readonly events = new EventSender();
  readonly historyIntervalMs: number;
  readonly historyPageLimit: number;
  /** Bot posts allowed per channel per second (`options.postsPerChannelPerSecond`). */
  readonly postsPerChannelPerSecond: number | undefined;
  /** Posts answered 429 by {@link postsPerChannelPerSecond}. */
  postsRateLimited = 0;
  /** @internal Accepted post times (epoch ms) per channel, for the per-second limit. */
  readonly postTimes = new Map<string, number[]>();
  /** Bot posts shown per channel per second (`options.postsShownPerChannelPerSecond`). */
  readonly postsShownPerChannelPerSecond: number | undefined;
  /** Posts answered `ok: true` but never shown (a burst over {@link postsShownPerChannelPerSecond}). */
  readonly postsHidden: Array<{ channel: string; ts: string; text: string }> = [];
  /** @internal Shown post times (epoch ms) per channel. */
  readonly shownTimes = new Map<string, number[]>();
  /** Uploaded files by id. */
  readonly files = new Map<string, FakeFile>();
  /** Native streams by `channel:ts`. */
  readonly streams = new Map<string, FakeStream>();
  /** How long a stream stays open, in ms (switchable at run time). */
  streamLifetimeMs: number;
  readonly #byVisible = new Map<string, FakeSlackMessage>();
  #seq = 0;
  #nextChannel = 1;
  /** The wait of the last rate-limit fault rendered, for its `Retry-After` header. */
  #pendingRetryAfterMs: number | undefined;

  private constructor(options: FakeSlackOptions) {
    this.bots = options.bots ?? [FAKE_BOT, OTHER_FAKE_BOT];
    this.historyIntervalMs = options.historyIntervalMs ?? 0;
    this.historyPageLimit = options.historyPageLimit ?? 15;
    this.postsPerChannelPerSecond = options.postsPerChannelPerSecond;
    this.postsShownPerChannelPerSecond = options.postsShownPerChannelPerSecond;
    this.streamLifetimeMs = options.streamLifetimeMs ?? 300_000;
    this.server = new FakePlatformServer({
      platform: "slack",
      wire: {
        errorBody: (answer) => {
          this.#pendingRetryAfterMs = answer.retryAfterMs;
          return slackErrorBody(answer);
        },
      },
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    });
    // Slack announces a wait only in `Retry-After` (whole seconds); a fault that asks for the
    // wait "in the body" gets it there, Slack's one place for it.
    this.server.app.use("*", async (c, next) => {
      this.#pendingRetryAfterMs = undefined;
      await next();
      const wait = this.#pendingRetryAfterMs;
      if (c.res.status === 429 && wait !== undefined && !c.res.headers.has("retry-after")) {
        const headers = new Headers(c.res.headers);
        headers.set("retry-after", String(Math.ceil(wait / 1_000)));
        c.res = new Response(c.res.body, { status: 429, headers });
      }
    });
    registerChatMethods(this);
    registerReadMethods(this);
    registerStreamMethods(this);
    registerFileMethods(this);
  }

  /** Starts a fake on 127.0.0.1. */
  static async start(options: FakeSlackOptions = {}): Promise<FakeSlack> {
    const fake = new FakeSlack(options);
    await fake.server.listen();
    return fake;
  }

  /** The `slackApiUrl` to give `WebClient` (with the trailing `/`). */
  get apiUrl(): string {
    return `${this.server.url}/api/`;
  }

  /** Fault injection in platform-neutral terms (ops: send, edit, delete, read, auth). */
  get faults() {
    return this.server.faults;
  }

  /** Scripts a fault (shorthand for `faults.failNext`). */
  failNext(fault: PlatformFault, target?: FaultTarget): void {
    this.server.faults.failNext(fault, target);
  }

  /** The bot a `Bearer` token belongs to. */
  botOfToken(token: string | undefined): FakeSlackBot | undefined {
    return this.bots.find((b) => b.token === token);
  }

  /**
   * Creates a conversation: a channel `C…` or a DM `D…`. `members`: the bots in it (what
   * `users.conversations` lists); every bot when absent.
   */
  createChannel(
    input: { type?: "channel" | "im"; name?: string; members?: readonly FakeSlackBot[] } = {},
  ): FakeChannel {
    const type = input.type ?? "channel";
    const n = String(this.#nextChannel++).padStart(8, "0");
    const channel: FakeChannel = {
      id: `${type === "im" ? "D" : "C"}${n}`,
      type,
      ...(input.name !== undefined ? { name: input.name } : {}),
      archived: false,
      ...(input.members ? { members: new Set(input.members.map((b) => b.userId)) } : {}),
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A fresh `ts`: the seconds of `atMs` (default now) and a sequence number as the fraction. */
  nextTs(atMs: number = Date.now()): string {
    this.#seq += 1;
    const seconds = Math.floor(atMs / 1_000);
    return `${seconds}.${String(this.#seq % 1_000_000).padStart(6, "0")}`;
  }

  /** Stores a message (a person's or a bot's) and makes it visible. */
  addMessage(input: {
    channel: string;
    text: string;
    user: string;
    bot?: FakeSlackBot;
    threadTs?: string;
    metadata?: FakeSlackMessage["metadata"];
    broadcast?: boolean;
    name?: string;
    /** When it was posted (epoch ms), for history from before a test. @defaultValue now */
    atMs?: number;
    /** The visible id of a message it quotes (a permalink attachment). */
    replyTo?: string;
    blocks?: unknown[];
  }): FakeSlackMessage {
    const ts = this.nextTs(input.atMs);
    const posted = this.state.post({
      chat: input.channel,
      text: input.text,
      author: {
        id: input.user,
        bot: input.bot !== undefined,
        ...(input.name ? { name: input.name } : {}),
      },
      ...(input.threadTs !== undefined ? { thread: input.threadTs } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      ...(input.replyTo !== undefined ? { replyTo: input.replyTo } : {}),
    });
    const message: FakeSlackMessage = {
      channel: input.channel,
      ts,
      user: input.user,
      teamId: input.bot?.teamId ?? ALICE.teamId,
      broadcast: input.broadcast === true,
      files: [],
      visibleId: posted.message.id,
      ...(input.blocks ? { blocks: input.blocks } : {}),
      ...(input.threadTs !== undefined ? { threadTs: input.threadTs } : {}),
      ...(input.bot ? { botId: input.bot.botId, appId: input.bot.appId } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    };
    this.messagesByRef.set(`${input.channel}:${ts}`, message);
    this.#byVisible.set(message.visibleId, message);
    return message;
  }

  /** The Slack `message` event of a stored message, as the Events API delivers it. */
  messageEvent(m: FakeSlackMessage): Record<string, unknown> {
    const channel = this.channels.get(m.channel);
    return {
      ...this.messageJson(m, true),
      channel: m.channel,
      channel_type: channel?.type === "im" ? "im" : "channel",
      event_ts: m.ts,
    };
  }

  /**
   * Someone (a person, or a bot with `bot`) posts in a channel: the message is stored and
   * visible, and every connected bot gets its `message` event — plus an `app_mention` event when
   * the text mentions that bot (`<@U…>`), as Slack sends both.
   */
  async userPost(input: {
    channel: string;
    text: string;
    user?: string;
    bot?: FakeSlackBot;
    threadTs?: string;
    metadata?: FakeSlackMessage["metadata"];
    broadcast?: boolean;
  }): Promise<FakeSlackMessage> {
    const user = input.bot?.userId ?? input.user ?? ALICE.id;
    const stored = this.addMessage({ ...input, user, name: input.bot?.name ?? ALICE.name });
    await this.deliverMessage(stored);
    return stored;
  }

  /** Delivers the `message` (and `app_mention`) events of a stored message again, new event ids. */
  async deliverMessage(
    m: FakeSlackMessage,
    to: readonly FakeSlackBot[] = this.bots,
  ): Promise<void> {
    const event = this.messageEvent(m);
    for (const bot of to) {
      if (!this.events.connected(bot)) continue;
      await this.events.deliver(bot, event);
      const text = String(event.text ?? "");
      if (text.includes(`<@${bot.userId}>`)) {
        await this.events.deliver(bot, { ...event, type: "app_mention" });
      }
    }
  }

  /** Someone edits a message: stored, visible, and a `message_changed` event for every bot. */
  async userEdit(channel: string, ts: string, text: string, editor?: FakeSlackBot): Promise<void> {
    const m = this.message(channel, ts);
    if (!m) throw new Error(`no message ${channel}:${ts}`);
    const previous = this.messageJson(m, true);
    this.state.edit(m.visibleId, text);
    const now = this.messageJson(m, true);
    const editTs = this.nextTs();
    const event = {
      type: "message",
      subtype: "message_changed",
      hidden: true,
      channel,
      channel_type: this.channels.get(channel)?.type === "im" ? "im" : "channel",
      message: { ...now, edited: { user: editor?.userId ?? m.user, ts: editTs } },
      previous_message: previous,
      ts: editTs,
      event_ts: editTs,
    };
    for (const bot of this.bots)
      if (this.events.connected(bot)) await this.events.deliver(bot, event);
  }

  /** The stored message of `channel` + `ts`, deleted ones excluded. */
  message(channel: string, ts: string): FakeSlackMessage | undefined {
    const m = this.messagesByRef.get(`${channel}:${ts}`);
    return m && !this.state.get(m.visibleId)?.deleted ? m : undefined;
  }

  /** The stored message behind a visible message. */
  messageOfVisible(visible: VisibleMessage): FakeSlackMessage | undefined {
    return this.#byVisible.get(visible.id);
  }

  /** Slack's JSON of a stored message (as history and events show it). */
  messageJson(m: FakeSlackMessage, withMetadata: boolean): Record<string, unknown> {
    const visible = this.state.get(m.visibleId);
    // A thread root shows its replies' count and newest `ts` (Slack's parent message fields).
    const replies =
      m.threadTs === undefined
        ? [...this.messagesByRef.values()].filter(
            (r) => r.channel === m.channel && r.threadTs === m.ts && this.message(r.channel, r.ts),
          )
        : [];
    const latest = replies.map((r) => r.ts).sort((a, b) => Number(b) - Number(a))[0];
    return {
      type: "message",
      ts: m.ts,
      user: m.user,
      team: m.teamId,
      text: visible?.text ?? "",
      ...(m.threadTs !== undefined ? { thread_ts: m.threadTs } : {}),
      ...(latest !== undefined
        ? { thread_ts: m.ts, reply_count: replies.length, latest_reply: latest }
        : {}),
      ...(m.botId ? { bot_id: m.botId, app_id: m.appId } : {}),
      ...(m.broadcast ? { subtype: "thread_broadcast" } : {}),
      ...(withMetadata && m.metadata ? { metadata: m.metadata } : {}),
      ...(visible?.editedAt !== undefined
        ? { edited: { user: m.user, ts: `${Math.floor(visible.editedAt / 1_000)}.000000` } }
        : {}),
    };
  }

  /**
   * Visible messages of a channel (posting order, deleted excluded): a thread's replies with
   * `thread` (the root's ts), top-level ones (and broadcasts) with `thread: null`, all without.
   */
  messages(channel: string, options: { thread?: string | null } = {}): VisibleMessage[] {
    const all = this.state.messages({ chat: channel });
    if (options.thread === undefined) return all;
    return all.filter((v) => {
      const m = this.messageOfVisible(v);
      if (options.thread === null) return v.thread === undefined || m?.broadcast === true;
      return v.thread === options.thread;
    });
  }

  /** Stops the server. */
  async close(): Promise<void> {
    await this.server.close();
  }
}
