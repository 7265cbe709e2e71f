/**
 * A fake Discord on 127.0.0.1 for tests: the real `@discordjs/rest` client talks to its REST
 * routes through `apiBase`, and (see `fakeGateway.ts`) the real discord.js `Client` connects to
 * its gateway. Built on the SDK's `FakePlatformServer` (fault injection) and `VisibleState`
 * (what each channel and thread shows). It behaves like Discord where herald depends on it:
 * enforced nonces within a window (a replay returns the original; a replay after the original
 * was deleted answers 10008), `message_reference` with `fail_if_not_exists`, content and embed
 * limits (50035), per-channel buckets with `X-RateLimit-*` headers and 429s, forum, media and
 * category channels (400 50008, as the live API answers), missing permissions (50013), unknown
 * channels (10003), and threads started from a message (the thread's id is the message's).
 *
 * @example
 * const discord = await FakeDiscord.start();
 * const channel = discord.createChannel({ type: "text" });
 * // config: { apiBase: discord.apiBase }, token: FAKE_BOT.token
 *
 * @module
 */
import {
  type Context,
  type FakePlatformEnv,
  FakePlatformServer,
  type FaultTarget,
  type PlatformFault,
  type VisibleMessage,
  VisibleState,
} from "@herald/plugin-sdk/testing";
import { registerDirectRoutes } from "./fakeDirect.ts";
import { FakeGateway } from "./fakeGateway.ts";
import { registerHistoryRoutes } from "./fakeHistory.ts";
import {
  edgeRateLimitResponse,
  type FakeRateLimitShape,
  rateLimitFault,
} from "./fakeRateLimits.ts";
import { registerReactionRoutes } from "./fakeReactions.ts";
import { registerRest } from "./fakeRest.ts";
import type {
  FakeBotAccount,
  FakeBucketLimits,
  FakeChannel,
  FakeDiscordCore,
  FakeMessageEvent,
  FakeStoredMessage,
  FakeUser,
} from "./fakeTypes.ts";
import { discordErrorBody, readBody, USER_DEFAULTS } from "./fakeWire.ts";

export type { FakeRateLimitShape } from "./fakeRateLimits.ts";
export type {
  FakeBotAccount,
  FakeBucketLimits,
  FakeChannel,
  FakeMessageEvent,
  FakeStoredMessage,
  FakeUser,
} from "./fakeTypes.ts";

/** The bot under test. */
export const FAKE_BOT: FakeBotAccount = {
  id: "700000000000000001",
  username: "herald-test",
  token: "NzAwMDAwMDAwMDAwMDAwMDAx.fake.herald-test-bot-token",
  applicationId: "700000000000000001",
};

/** Another bot in the same guild (its messages are other bots' messages). */
export const OTHER_FAKE_BOT: FakeBotAccount = {
  id: "700000000000000002",
  username: "other-bot",
  token: "NzAwMDAwMDAwMDAwMDAwMDAy.fake.other-bot-token",
  applicationId: "700000000000000002",
};

/** A second account of the channel (the two-accounts contract test). */
export const SECOND_FAKE_BOT: FakeBotAccount = {
  id: "700000000000000003",
  username: "second-herald",
  token: "NzAwMDAwMDAwMDAwMDAwMDAz.fake.second-herald-token",
  applicationId: "700000000000000003",
};

/** The default human in tests. */
export const ALICE: FakeUser = { id: "600000000000000001", username: "alice" };

/** Options of {@link FakeDiscord.start}. */
export type FakeDiscordOptions = {
  /** Bots whose tokens are accepted. @defaultValue [FAKE_BOT, OTHER_FAKE_BOT, SECOND_FAKE_BOT] */
  bots?: FakeBotAccount[];
  /** @defaultValue Discord's `{ limit: 5, windowMs: 5_000 }` */
  buckets?: FakeBucketLimits;
  /**
   * How long a nonce is enforced, in ms ("a few minutes" on Discord).
   * @defaultValue 300_000
   */
  nonceWindowMs?: number;
  /** Delay before every call, in ms. @defaultValue 0 */
  latencyMs?: number;
  /** @defaultValue Date.now */
  clock?: () => number;
};

/** Message ids start here (below 2^53, so `VisibleState`'s counter is exact). */
const FIRST_MESSAGE_ID = 1_000_000_000_000_000;

/** The fake Discord. */
export class FakeDiscord implements FakeDiscordCore {
  readonly server: FakePlatformServer;
  readonly state: VisibleState;
  readonly bots: readonly FakeBotAccount[];
  readonly channels = new Map<string, FakeChannel>();
  readonly stored = new Map<string, FakeStoredMessage>();
  readonly buckets: FakeBucketLimits;
  readonly guildId = "500000000000000001";
  readonly clock: () => number;
  /** The gateway (WebSocket) the discord.js `Client` connects to. */
  readonly gateway: FakeGateway;
  /** Create and edit bodies as received (JSON, or multipart's `payload_json`), faulted ones too, oldest first. */
  readonly requests: Array<{
    method: "POST" | "PATCH";
    channelId: string;
    body: Record<string, unknown>;
  }> = [];
  /** When each REST call refused by {@link restrictAddress} arrived (epoch ms, the fake's clock). */
  readonly edgeRefusals: number[] = [];
  /** Until when (epoch ms) Discord's edge refuses every REST call (see {@link restrictAddress}). */
  #restrictedUntil = 0;
  #restrictedSeconds = 0;
  /** Where `GET /gateway/bot` points (set by the gateway fake). */
  gatewayUrl = "ws://127.0.0.1:9/unset";
  /** Listeners of message changes (the gateway fake dispatches them). */
  readonly #listeners = new Set<(event: FakeMessageEvent) => void>();
  #nextChannelId = 800_000_000_000_001;
  #nextUserId = 600_000_000_000_101;

  private constructor(options: FakeDiscordOptions) {
    this.bots = options.bots ?? [FAKE_BOT, OTHER_FAKE_BOT, SECOND_FAKE_BOT];
    this.clock = options.clock ?? Date.now;
    this.buckets = options.buckets ?? { limit: 5, windowMs: 5_000 };
    this.server = new FakePlatformServer({
      wire: { errorBody: discordErrorBody },
      platform: "discord",
      clock: this.clock,
      ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    });
    this.state = new VisibleState({
      idempotentKeys: true,
      keyTtlMs: options.nonceWindowMs ?? 300_000,
      clock: this.clock,
      firstId: FIRST_MESSAGE_ID,
      typingLapseMs: 10_000,
    });
    // Cloudflare in front of the API: a restricted address gets its HTML 429 on every call.
    this.server.app.use("/api/*", async (c, next) => {
      const now = this.clock();
      if (now >= this.#restrictedUntil) return next();
      this.edgeRefusals.push(now);
      c.res = edgeRateLimitResponse(this.#restrictedSeconds);
    });
    // Every create and edit body as sent, before faults apply (tests read nonces, references).
    this.server.app.use("/api/v10/channels/:channel/messages/*", (c, next) =>
      this.#record(c, next),
    );
    registerRest(this);
    registerReactionRoutes(this);
    registerDirectRoutes(this, [ALICE]);
    registerHistoryRoutes(this);
    this.gateway = new FakeGateway(this);
  }

  async #record(c: Context<FakePlatformEnv>, next: () => Promise<void>): Promise<void> {
    const method = c.req.method;
    if (method === "POST" || method === "PATCH") {
      const { json } = await readBody(c);
      if (!c.req.path.endsWith("/threads")) {
        this.requests.push({ method, channelId: c.req.param("channel") ?? "", body: json });
      }
    }
    await next();
  }

  /** Starts a fake on a free port of 127.0.0.1. */
  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const fake = new FakeDiscord(options);
    await fake.server.listen();
    await fake.gateway.listen();
    return fake;
  }

  /** The REST base to give the adapter (`apiBase`), e.g. `http://127.0.0.1:41234/api`. */
  get apiBase(): string {
    return `${this.server.url}/api`;
  }

  /** The fake's own origin (`http://127.0.0.1:<port>`), e.g. for its attachment CDN. */
  get serverUrl(): string {
    return this.server.url;
  }

  /** Fault injection (ops: send, edit, delete, typing, read, thread). */
  get faults() {
    return this.server.faults;
  }

  /** Scripts a fault (shorthand for `faults.failNext`). */
  failNext(fault: PlatformFault, target?: FaultTarget): void {
    this.server.faults.failNext(fault, target);
  }

  /**
   * Answers the next call (of `target`) with one of the 429 shapes Discord sends (see
   * `fakeRateLimits.ts` for each shape's source). The `edge` shape restricts the whole address
   * instead (see {@link restrictAddress}).
   *
   * @param retryAfterSeconds - the wait, in seconds (a float).
   */
  rateLimitNext(shape: FakeRateLimitShape, retryAfterSeconds: number, target?: FaultTarget): void {
    if (shape === "edge") this.restrictAddress(retryAfterSeconds);
    else this.failNext(rateLimitFault(shape, retryAfterSeconds), target);
  }

  /**
   * Restricts this client's address for `seconds`, as Cloudflare does after too many invalid
   * requests: every REST call, on any route, answers HTML `429` "error code: 1015" with a
   * `Retry-After` and no Discord headers (docs topics/rate-limits "Invalid Request Limit";
   * discord-api-docs#1771). Refusals are counted in {@link edgeRefusals}.
   */
  restrictAddress(seconds: number): void {
    this.#restrictedSeconds = seconds;
    this.#restrictedUntil = this.clock() + seconds * 1_000;
  }

  /** Ends the nonce window now: a nonce sent again creates a new message. */
  expireNonces(): void {
    this.state.keyTtlMs = 0;
  }

  botOfToken(authorization: string | undefined): FakeBotAccount | undefined {
    const token = authorization?.replace(/^Bot /, "");
    return this.bots.find((b) => b.token === token);
  }

  /** Creates a channel in the guild (or a DM). */
  createChannel(input: {
    type: FakeChannel["type"];
    name?: string;
    parentId?: string;
    botId?: string;
    id?: string;
  }): FakeChannel {
    const id = input.id ?? String(this.#nextChannelId++);
    const channel: FakeChannel = {
      id,
      type: input.type,
      name: input.name ?? `${input.type}-${id.slice(-4)}`,
      ...(input.type !== "dm" ? { guildId: this.guildId } : {}),
      ...(input.parentId ? { parentId: input.parentId } : {}),
      ...(input.botId ? { botId: input.botId } : {}),
      denied: new Set(),
    };
    this.channels.set(id, channel);
    this.#emit({ type: "channel", channel });
    return channel;
  }

  /** A new human user id. */
  newUser(username = "user"): FakeUser {
    return { id: String(this.#nextUserId++), username };
  }

  /** Starts a thread from message `messageId` (the thread's id is the message's). */
  startThread(messageId: string, name = "thread"): FakeChannel {
    const stored = this.stored.get(messageId);
    if (!stored) throw new Error(`fake discord: no message ${messageId}`);
    const existing = this.channels.get(messageId);
    if (existing) return existing;
    return this.createChannel({ type: "thread", id: messageId, name, parentId: stored.channelId });
  }

  /** Posts a message as `author` (a person or another bot), as Discord stores and dispatches it. */
  post(input: {
    channelId: string;
    author: FakeUser;
    text: string;
    nonce?: string;
    embeds?: unknown[];
    files?: Array<{ name: string; size: number }>;
    referenceId?: string;
    webhookId?: string;
    applicationId?: string;
  }): { message: FakeStoredMessage; duplicate: boolean } {
    const channel = this.channels.get(input.channelId);
    const { message, duplicate } = this.state.post({
      chat: input.channelId,
      text: input.text,
      author: { id: input.author.id, name: input.author.username, bot: input.author.bot === true },
      ...(input.nonce !== undefined ? { key: input.nonce } : {}),
      ...(input.referenceId !== undefined ? { replyTo: input.referenceId } : {}),
    });
    if (duplicate) {
      return { message: this.stored.get(message.id) as FakeStoredMessage, duplicate: true };
    }
    const json: Record<string, unknown> = {
      id: message.id,
      type: input.referenceId ? 19 : 0,
      channel_id: input.channelId,
      ...(channel?.guildId ? { guild_id: channel.guildId } : {}),
      author: {
        id: input.author.id,
        username: input.author.username,
        discriminator: "0",
        bot: input.author.bot === true,
        avatar: null,
        ...USER_DEFAULTS,
      },
      content: input.text,
      timestamp: new Date(message.createdAt).toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: (input.files ?? []).map((f, i) => ({
        id: `${message.id}${i}`,
        filename: f.name,
        size: f.size,
        url: `https://cdn.invalid/${f.name}`,
        proxy_url: `https://cdn.invalid/${f.name}`,
      })),
      embeds: (input.embeds ?? []).map(richEmbed),
      pinned: false,
      // `MessageResponse` requires these (discord-api-spec); a plain message has none set.
      flags: 0,
      components: [],
      ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
      ...(input.referenceId !== undefined
        ? {
            // type 0 = DEFAULT (a reply); `MessageReferenceResponse` requires it.
            message_reference: {
              type: 0,
              message_id: input.referenceId,
              channel_id: input.channelId,
            },
          }
        : {}),
      ...(input.webhookId ? { webhook_id: input.webhookId } : {}),
      ...(input.applicationId ? { application_id: input.applicationId } : {}),
    };
    const stored: FakeStoredMessage = {
      json,
      channelId: input.channelId,
      authorId: input.author.id,
      embeds: input.embeds ?? [],
      files: input.files ?? [],
      ...(input.referenceId !== undefined ? { referenceId: input.referenceId } : {}),
      ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
    };
    this.stored.set(message.id, stored);
    this.#emit({ type: "create", message: stored });
    return { message: stored, duplicate: false };
  }

  /** Edits a stored message (its text and embeds), as Discord does and dispatches. */
  edit(id: string, text: string, embeds?: unknown[]): FakeStoredMessage | undefined {
    const stored = this.stored.get(id);
    if (!stored || this.state.get(id)?.deleted) return undefined;
    this.state.edit(id, text);
    stored.json = {
      ...stored.json,
      content: text,
      edited_timestamp: new Date(this.clock()).toISOString(),
      ...(embeds ? { embeds: embeds.map(richEmbed) } : {}),
    };
    if (embeds) stored.embeds = embeds;
    this.#emit({ type: "update", message: stored });
    return stored;
  }

  /** Deletes a stored message. @returns false when it was not there (or already deleted). */
  delete(id: string): boolean {
    const stored = this.stored.get(id);
    if (!stored || this.state.delete(id).status === "not_found") return false;
    this.#emit({ type: "delete", message: stored });
    return true;
  }

  /** Messages visible in a channel or thread, in order. */
  messages(channelId: string): VisibleMessage[] {
    return this.state.messages({ chat: channelId });
  }

  /** Subscribes to message changes. @returns an unsubscribe function. */
  onMessage(listener: (event: FakeMessageEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the server. */
  async close(): Promise<void> {
    await this.gateway.close();
    await this.server.close();
  }

  #emit(event: FakeMessageEvent): void {
    for (const l of this.#listeners) l(event);
  }
}

/** An embed as Discord answers it: a bot's embeds come back with `type: "rich"` (the spec's `MessageEmbedResponse` requires `type`). */
function richEmbed(embed: unknown): unknown {
  return { type: "rich", ...(embed as Record<string, unknown>) };
}
