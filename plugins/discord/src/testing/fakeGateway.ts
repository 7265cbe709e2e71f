/**
 * The fake's gateway, on the SDK's `FakeSocketServer`, which the real discord.js `Client`
 * connects to (`GET /gateway/bot` names it): HELLO (op 10), heartbeat ACKs (op 11), IDENTIFY
 * (op 2) → READY + GUILD_CREATE (channels and threads), dispatches of every message change
 * (MESSAGE_CREATE / UPDATE / DELETE, THREAD_CREATE, CHANNEL_CREATE) with increasing sequence
 * numbers, and RESUME (op 6) replaying what the session missed, then RESUMED; an unknown session
 * gets op 9. A session stays resumable after its connection drops and keeps collecting events,
 * as Discord's does — unless the client closed it with 1000 / 1001. `replayOverlap` makes a RESUME replay events the client already had
 * (CASES C26).
 *
 * Bots are sent what they can see: guild channels to every bot, a DM to its bot. A bot that
 * has never connected is sent the messages posted before its first session right after READY
 * (a test posts, then starts the bot — as if the post came just after it connected).
 *
 * @module
 */
import { type FakeSocketConnection, FakeSocketServer } from "@herald/plugin-sdk/testing";
import { channelJson } from "./fakeRest.ts";
import type { FakeBotAccount, FakeDiscordCore, FakeMessageEvent } from "./fakeTypes.ts";
import { USER_DEFAULTS } from "./fakeWire.ts";

type Dispatch = { op: 0; t: string; s: number; d: unknown };

/** One gateway session of one bot. */
export type FakeGatewaySession = {
  id: string;
  bot: FakeBotAccount;
  seq: number;
  log: Dispatch[];
  conn: FakeSocketConnection | undefined;
};

/** The fake gateway of a `FakeDiscord`. */
export class FakeGateway {
  readonly server = new FakeSocketServer();
  readonly sessions = new Map<string, FakeGatewaySession>();
  /**
   * How many already-acknowledged dispatches a RESUME replays again (Discord may resend events
   * the client had). @defaultValue 0
   */
  replayOverlap = 0;
  /** The heartbeat interval announced in HELLO, in ms. @defaultValue 41_250 */
  heartbeatIntervalMs = 41_250;
  readonly #fake: FakeDiscordCore;
  readonly #current = new Map<string, FakeGatewaySession>();
  /** Bots that have had a session (the backlog is only for bots that never connected). */
  readonly #connected = new Set<string>();
  readonly #backlog = new Map<string, Array<{ t: string; d: unknown }>>();
  #nextSession = 1;

  constructor(fake: FakeDiscordCore) {
    this.#fake = fake;
    this.server.onConnection((conn) => void this.#serve(conn));
    fake.onMessage((event) => this.#onMessage(event));
  }

  /** Starts listening; `GET /gateway/bot` then names this gateway. */
  async listen(): Promise<string> {
    const url = await this.server.listen();
    this.#fake.gatewayUrl = url;
    return url;
  }

  /** Dispatches `t` with `d` to every bot that can see `channelId` (a new sequence number each). */
  dispatch(t: string, d: unknown, channelId?: string): void {
    const channel = channelId ? this.#fake.channels.get(channelId) : undefined;
    for (const bot of this.#fake.bots) {
      if (channel?.type === "dm" && (channel.botId ?? this.#fake.bots[0]?.id) !== bot.id) continue;
      const session = this.#current.get(bot.id);
      if (session) this.#send(session, t, d);
      else if (channelId && !this.#connected.has(bot.id)) this.#backlogOf(bot.id).push({ t, d });
    }
  }

  #backlogOf(botId: string): Array<{ t: string; d: unknown }> {
    let backlog = this.#backlog.get(botId);
    if (!backlog) {
      backlog = [];
      this.#backlog.set(botId, backlog);
    }
    return backlog;
  }

  /** Delivers a stored message's MESSAGE_CREATE again (a new sequence number: a platform retry). */
  redispatch(messageId: string): void {
    const stored = this.#fake.stored.get(messageId);
    if (!stored) throw new Error(`fake gateway: no message ${messageId}`);
    this.dispatch("MESSAGE_CREATE", stored.json, stored.channelId);
  }

  /** Closes every open connection with `code` (4000: the client resumes). */
  async closeAll(code: number): Promise<void> {
    await Promise.all(this.server.openConnections.map((c) => c.close(code)));
  }

  /** Drops every open connection without a close frame (1006: the client resumes). */
  async dropAll(): Promise<void> {
    await this.server.dropConnections();
  }

  /** Stops the gateway. */
  close(): Promise<void> {
    return this.server.close();
  }

  #onMessage(event: FakeMessageEvent): void {
    if (event.type === "channel") {
      const t = event.channel.type === "thread" ? "THREAD_CREATE" : "CHANNEL_CREATE";
      if (event.channel.guildId)
        this.dispatch(t, { ...channelJson(this.#fake, event.channel.id), newly_created: true });
      return;
    }
    const { json, channelId } = event.message;
    if (event.type === "create") this.dispatch("MESSAGE_CREATE", json, channelId);
    else if (event.type === "update") this.dispatch("MESSAGE_UPDATE", json, channelId);
    else {
      const channel = this.#fake.channels.get(channelId);
      this.dispatch(
        "MESSAGE_DELETE",
        {
          id: json.id,
          channel_id: channelId,
          ...(channel?.guildId ? { guild_id: channel.guildId } : {}),
        },
        channelId,
      );
    }
  }

  #send(session: FakeGatewaySession, t: string, d: unknown): void {
    session.seq += 1;
    const packet: Dispatch = { op: 0, t, s: session.seq, d };
    session.log.push(packet);
    session.conn?.send(packet);
  }

  async #serve(conn: FakeSocketConnection): Promise<void> {
    conn.send({ op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs } });
    let session: FakeGatewaySession | undefined;
    while (conn.open) {
      let frame: { op?: number; d?: Record<string, unknown> };
      try {
        frame = (await conn.next(() => true, 1_000)) as typeof frame;
      } catch {
        continue; // nothing within a second: look again while the connection is open
      }
      if (frame.op === 1) conn.send({ op: 11 });
      else if (frame.op === 2) session = this.#identify(conn, frame.d ?? {});
      else if (frame.op === 6) session = this.#resume(conn, frame.d ?? {});
    }
    if (session && session.conn === conn) session.conn = undefined;
    // A client that closes with 1000 / 1001 ends its session, as on Discord (no RESUME then).
    const { code } = await conn.closed;
    if (session && (code === 1000 || code === 1001)) {
      this.sessions.delete(session.id);
      if (this.#current.get(session.bot.id) === session) this.#current.delete(session.bot.id);
    }
  }

  #identify(
    conn: FakeSocketConnection,
    d: Record<string, unknown>,
  ): FakeGatewaySession | undefined {
    const bot = this.#fake.botOfToken(`Bot ${String(d.token ?? "")}`);
    if (!bot) {
      void conn.close(4004, "Authentication failed.");
      return undefined;
    }
    const firstSession = !this.#connected.has(bot.id);
    this.#connected.add(bot.id);
    const session: FakeGatewaySession = {
      id: `session-${this.#nextSession++}`,
      bot,
      seq: 0,
      log: [],
      conn,
    };
    this.sessions.set(session.id, session);
    this.#current.set(bot.id, session);
    const fake = this.#fake;
    this.#send(session, "READY", {
      v: 10,
      user: {
        id: bot.id,
        username: bot.username,
        discriminator: "0",
        bot: true,
        avatar: null,
        ...USER_DEFAULTS,
      },
      guilds: [{ id: fake.guildId, unavailable: true }],
      session_id: session.id,
      resume_gateway_url: this.server.url,
      shard: [0, 1],
      application: { id: bot.applicationId, flags: 0 },
    });
    const guildChannels = [...fake.channels.values()].filter((c) => c.guildId);
    this.#send(session, "GUILD_CREATE", {
      id: fake.guildId,
      name: "herald test guild",
      unavailable: false,
      owner_id: "600000000000000000",
      joined_at: new Date(0).toISOString(),
      member_count: 3,
      large: false,
      features: [],
      roles: [],
      emojis: [],
      stickers: [],
      members: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      channels: guildChannels
        .filter((c) => c.type !== "thread")
        .map((c) => channelJson(fake, c.id)),
      threads: guildChannels.filter((c) => c.type === "thread").map((c) => channelJson(fake, c.id)),
    });
    if (firstSession) {
      for (const item of this.#backlogOf(bot.id).splice(0)) this.#send(session, item.t, item.d);
    }
    return session;
  }

  #resume(conn: FakeSocketConnection, d: Record<string, unknown>): FakeGatewaySession | undefined {
    const session = this.sessions.get(String(d.session_id ?? ""));
    const bot = this.#fake.botOfToken(`Bot ${String(d.token ?? "")}`);
    if (!session || !bot || session.bot.id !== bot.id) {
      conn.send({ op: 9, d: false });
      return undefined;
    }
    session.conn = conn;
    const from = Number(d.seq ?? 0) - this.replayOverlap;
    for (const packet of session.log) if (packet.s > from) conn.send(packet);
    this.#send(session, "RESUMED", {});
    return session;
  }
}
