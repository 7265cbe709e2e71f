/**
 * The gateway receiver: discord.js's `Client` (intents `Guilds`, `GuildMessages`,
 * `MessageContent`, `DirectMessages`) connects, heartbeats, identifies and resumes; herald
 * listens to its raw dispatches — one listener, registered once, so reconnects never double it
 * — and hands each message dispatch to the sink with the channel from discord.js's cache.
 *
 * Nothing accepted is lost across a crash: the gateway session (id, resume URL, sequence) is
 * herald's cursor for this account (the SDK's cursor tracker), and its sequence only moves past
 * a dispatch once that dispatch's work is recorded or done. A restarted process RESUMEs the
 * saved session from that sequence, so Discord replays what was not finished; a replay of what
 * was finished is a duplicate for core's dedupe (CASES C26). Should Discord refuse the session
 * (op 9), discord.js identifies afresh. `stop` closes with 4200 (resumable), not discord.js's
 * 1000, so a stop and start resumes too. This uses discord.js's documented `ws.buildStrategy`
 * hook to wrap the session store of `@discordjs/ws`, and to dial `gatewayUrl` when configured.
 *
 * Source: https://discord.com/developers/docs/events/gateway#resuming
 *
 * @module
 */
import {
  CloseCodes,
  type SessionInfo,
  SimpleShardingStrategy,
  type WebSocketManager,
} from "@discordjs/ws";
import {
  ChannelAccountError,
  type ChannelReceiver,
  type ChannelReceiverSink,
  type CursorTracker,
  receiverHealth,
} from "@herald/plugin-sdk/channel-message";
import { Client, Events, GatewayIntentBits, Partials } from "discord.js";
import type { DiscordConfig } from "./config.ts";
import type { DiscordIdentity } from "./origin.ts";

/** The gateway intents herald asks for (Message Content is privileged: enable it in the portal). */
export const DISCORD_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
  // Reactions ([H23]): MESSAGE_REACTION_ADD / _REMOVE in guilds and DMs (not privileged).
  GatewayIntentBits.GuildMessageReactions,
  GatewayIntentBits.DirectMessageReactions,
];

/** The dispatches handed to the sink; the others only move the session's sequence. */
const MESSAGE_EVENTS = new Set([
  "MESSAGE_CREATE",
  "MESSAGE_UPDATE",
  "MESSAGE_DELETE",
  "MESSAGE_REACTION_ADD",
  "MESSAGE_REACTION_REMOVE",
]);

/** The cursor source under which the gateway session is kept. */
export const GATEWAY_CURSOR = "gateway";

type Packet = { t?: string | null; s?: number | null; d?: unknown; op?: number };

/** Options of {@link createGatewayReceiver}. */
export type GatewayReceiverOptions = {
  config: Pick<DiscordConfig, "apiBase" | "gatewayUrl" | "requestTimeoutMs"> &
    Partial<Pick<DiscordConfig, "tokenEnv">>;
  /** The herald account, named in a {@link ChannelAccountError}. @defaultValue "default" */
  accountId?: string;
  token: string;
  sink: ChannelReceiverSink;
  /** Filled in from READY (user id, application id). */
  identity: DiscordIdentity;
  /** @defaultValue Date.now */
  clock?: () => number;
};

/** The gateway receiver: a `ChannelReceiver` whose discord.js client is visible (tests). */
export type GatewayReceiver = ChannelReceiver & {
  /** The discord.js client (tests count its listeners). */
  readonly client: Client;
  start(signal?: AbortSignal): Promise<void>;
  stop(): Promise<void>;
};

/** What a persisted cursor holds: the session to resume. */
function parseSession(text: string | undefined): SessionInfo | undefined {
  if (!text) return undefined;
  try {
    const s = JSON.parse(text) as Partial<SessionInfo>;
    if (typeof s.sessionId !== "string" || typeof s.sequence !== "number") return undefined;
    return {
      sessionId: s.sessionId,
      sequence: s.sequence,
      resumeURL: typeof s.resumeURL === "string" ? s.resumeURL : "",
      shardId: 0,
      shardCount: 1,
    };
  } catch {
    return undefined;
  }
}

/**
 * A gateway close that no retry fixes, as the error that stops the account (instead of the
 * gateway re-opening it with backoff forever): 4004 the token, 4013 / 4014 the intents (4014:
 * Message Content is privileged and not enabled in the Developer Portal).
 * Source: https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-close-event-codes
 */
export function gatewayAccountError(
  code: number | undefined,
  accountId: string,
  tokenEnv: string,
  cause?: unknown,
): ChannelAccountError | undefined {
  const fail = (problem: string, fix: string) =>
    new ChannelAccountError("discord", accountId, problem, fix, { cause });
  if (code === 4004) {
    return fail(
      "the Discord gateway rejected the bot token (close 4004 Authentication failed)",
      `check the bot token in ${tokenEnv} (Developer Portal → Bot → Reset Token)`,
    );
  }
  if (code === 4014) {
    return fail(
      "Discord refused the Message Content intent (close 4014 Disallowed intent(s))",
      "enable Message Content Intent in the Developer Portal → your application → Bot → Privileged Gateway Intents",
    );
  }
  if (code === 4013) {
    return fail(
      "Discord refused the gateway intents (close 4013 Invalid intent(s))",
      "report this herald bug: the intents herald asks for are not valid",
    );
  }
  return undefined;
}

/**
 * Builds the gateway receiver of one bot.
 * @throws nothing at build time; `start` rejects when the token is refused, with a
 *   {@link ChannelAccountError} when the gateway closes with 4004, 4013 or 4014.
 */
export function createGatewayReceiver(options: GatewayReceiverOptions): GatewayReceiver {
  const { config, token, sink, identity } = options;
  const health = receiverHealth(options.clock);
  let cursor: CursorTracker | undefined;
  let saved: SessionInfo | undefined;
  let live: SessionInfo | null = null;
  let strategy: SimpleShardingStrategy | undefined;

  const buildStrategy = (manager: WebSocketManager) => {
    const { retrieveSessionInfo, updateSessionInfo } = manager.options;
    manager.options.retrieveSessionInfo = async (shardId) =>
      (await retrieveSessionInfo(shardId)) ?? saved ?? null;
    manager.options.updateSessionInfo = async (shardId, info) => {
      live = info;
      if (info === null) saved = undefined; // refused or closed for good: identify afresh
      await updateSessionInfo(shardId, info);
    };
    if (config.gatewayUrl) {
      const fetchInfo = manager.fetchGatewayInformation.bind(manager);
      const url = config.gatewayUrl;
      manager.fetchGatewayInformation = async (force?: boolean) => ({
        ...(await fetchInfo(force)),
        url,
      });
    }
    strategy = new SimpleShardingStrategy(manager);
    return strategy;
  };

  const client = new Client({
    intents: DISCORD_INTENTS,
    partials: [Partials.Channel, Partials.Message],
    rest: { api: config.apiBase, timeout: config.requestTimeoutMs },
    ws: { buildStrategy },
  });

  const asRecord = (d: unknown): Record<string, unknown> | undefined =>
    d !== null && typeof d === "object" && !Array.isArray(d)
      ? (d as Record<string, unknown>)
      : undefined;

  const onPacket = (packet: Packet) => {
    // `d` is whatever the gateway sent: read it as unknown, so a hostile dispatch (null, a
    // string, wrong types) reaches the sink — and is dead-lettered there with its field path —
    // instead of throwing here, inside discord.js's event emitter (an uncaught exception).
    const d = asRecord(packet.d);
    if (packet.t === "READY") {
      const user = asRecord(d?.user);
      const application = asRecord(d?.application);
      if (typeof user?.id === "string") {
        identity.set(user.id, typeof application?.id === "string" ? application.id : undefined);
      }
    }
    if (typeof packet.s !== "number" || !packet.t || !cursor) return;
    const session = live ?? saved;
    const batch = cursor.batch(
      JSON.stringify({
        sessionId: session?.sessionId ?? "",
        resumeURL: session?.resumeURL ?? "",
        sequence: packet.s,
      }),
    );
    try {
      if (MESSAGE_EVENTS.has(packet.t)) {
        const channelId = typeof d?.channel_id === "string" ? d.channel_id : undefined;
        const channel = channelId ? client.channels.cache.get(channelId) : undefined;
        const raw = {
          t: packet.t,
          s: packet.s,
          d: packet.d,
          // The session names a reaction with its sequence (a dispatch without an id).
          ...(session?.sessionId ? { session: session.sessionId } : {}),
          ...(channel
            ? {
                channel: {
                  id: channel.id,
                  type: channel.type,
                  parent_id: "parentId" in channel ? (channel.parentId ?? null) : null,
                },
              }
            : {}),
        };
        void batch.item().track(sink.receive(raw).ack);
      }
    } finally {
      // Always sealed: an unsealed batch would hold the session's sequence back for good.
      void batch.seal();
    }
  };
  // Registered once, for the life of the receiver: reconnects and resumes reuse it.
  client.on(Events.Raw, onPacket);
  // discord.js's own handlers (its caches) throw on a malformed dispatch — inside its
  // WebSocket listener, where nothing catches it, so the process would die (and, resuming
  // from the same sequence, die again). The dispatch already reached the sink above (recorded
  // or dead-lettered); a failure of discord.js's cache update is logged and the gateway goes on.
  // (`handlePacket` is discord.js's internal per-packet step: WebSocketManager.js, v14.)
  const ws = client.ws as unknown as {
    handlePacket(packet?: Packet, shard?: unknown): boolean;
  };
  const handlePacket = ws.handlePacket.bind(ws);
  ws.handlePacket = (packet, shard) => {
    try {
      return handlePacket(packet, shard);
    } catch (error) {
      sink.logger.warn(
        { err: error, dispatch: packet?.t, seq: packet?.s },
        "discord: discord.js could not apply a malformed gateway dispatch (skipped)",
      );
      return true;
    }
  };
  client.on(Events.ClientReady, () => health.set("up"));
  client.on(Events.ShardResume, () => health.set("up"));
  client.on(Events.ShardReconnecting, () => health.set("connecting", "reconnecting"));
  let closeCode: number | undefined;
  client.on(Events.ShardDisconnect, (event) => {
    closeCode = event.code;
    health.set("down", `closed ${event.code}`);
  });
  client.on(Events.ShardError, (error) =>
    sink.logger.warn({ err: error }, "discord gateway error"),
  );
  client.on(Events.Error, (error) => sink.logger.warn({ err: error }, "discord client error"));

  let started = false;
  return {
    client,
    async start(signal?: AbortSignal) {
      if (started) return;
      started = true;
      health.set("connecting");
      // The session the last process finished up to: Discord replays the rest on RESUME.
      cursor = sink.cursor(GATEWAY_CURSOR);
      const text = await cursor.load();
      const session = parseSession(text);
      if (session?.sessionId) saved = session;
      // The gateway stops while this account is still opening: give up the connection.
      const abort = () => void client.destroy();
      signal?.addEventListener("abort", abort, { once: true });
      try {
        await client.login(token);
      } catch (error) {
        throw (
          gatewayAccountError(
            closeCode,
            options.accountId ?? "default",
            config.tokenEnv ?? "DISCORD_TOKEN",
            error,
          ) ?? error
        );
      } finally {
        signal?.removeEventListener("abort", abort);
      }
    },
    async stop() {
      // Close resumably (4200) before discord.js's own destroy, which closes with 1000 and so
      // ends the session: Discord keeps a session closed otherwise for a few minutes, and the
      // next start RESUMEs it from the saved cursor (not from discord.js's session info, which
      // this clears) — what was posted meanwhile is replayed, as after a crash.
      await strategy
        ?.destroy({
          code: CloseCodes.Resuming,
          reason: "herald is stopping",
        })
        .catch((error: unknown) =>
          sink.logger.warn({ err: error }, "discord: resumable gateway close failed"),
        );
      await client.destroy();
      await cursor?.flushed();
      health.set("down", "stopped");
    },
    health: health.get,
  };
}
