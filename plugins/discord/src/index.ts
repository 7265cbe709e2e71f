/**
 * `@herald/plugin-discord`: the Discord channel for herald, on discord.js. Exactly-once sends
 * with enforced nonces (within Discord's window), replies that survive a deleted target,
 * threads, 2000-character chunking with code fences re-opened, embeds split within Discord's
 * limits, `allowed_mentions` that never ping `@everyone` or roles unless configured, edits,
 * deletes and live previews, with Discord's buckets fed to herald's scheduler.
 *
 * @example herald.config.json
 * { "channels": [{ "plugin": "@herald/plugin-discord", "config": { "tokenEnv": "DISCORD_TOKEN" } }] }
 *
 * @packageDocumentation
 */
import {
  type ChannelAccount,
  type ChannelAccountDeps,
  type ChannelMessageAdapter,
  type ChannelReceiver,
  type ChannelReceiverSink,
  defineChannelMessageAdapter,
  defineChannelPlugin,
  type MessageCapabilities,
  type RateLimitRouteInput,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import { checkDiscordCredentials, DISCORD_CHANNEL_ID, fetchSelf } from "./account.ts";
import { DiscordRest } from "./client.ts";
import {
  DISCORD_NONCE_WINDOW_MS,
  type DiscordConfig,
  discordConfigSchema,
  discordSecrets,
} from "./config.ts";
import { createDirect } from "./direct.ts";
import { createFetchAttachment } from "./files.ts";
import { createHistory, DISCORD_HISTORY_LIMIT } from "./history.ts";
import { createInteractionsHandler } from "./interactions.ts";
import { createLive } from "./live.ts";
import { DiscordIdentity, OutboundRegistry, userIdOfToken } from "./origin.ts";
import { createReact } from "./reactions.ts";
import { createReceive } from "./receive.ts";
import { createGatewayReceiver } from "./receiver.ts";
import { createRender } from "./render.ts";
import { channelOf, createSend, parseMessageRef } from "./send.ts";

export { checkDiscordCredentials, DISCORD_CHANNEL_ID, type DiscordSelf } from "./account.ts";
export { componentRows, DISCORD_ACTION_LIMITS, type DiscordComponentRow } from "./actions.ts";
export {
  createDiscordRest,
  type DiscordCall,
  DiscordRest,
  type DiscordRestOptions,
} from "./client.ts";
export {
  DISCORD_NONCE_WINDOW_MS,
  DISCORD_TEXT_LIMIT,
  type DiscordConfig,
  type DiscordConfigInput,
  discordConfigSchema,
} from "./config.ts";
export { type DiscordEmbed, discordEmbedSchema, EMBED_LIMITS, packEmbeds } from "./embeds.ts";
export {
  classifyError,
  DISCORD_CODES,
  type DiscordAnswer,
  DiscordApiError,
  DiscordNetworkError,
  DiscordRenderError,
  redactToken,
} from "./errors.ts";
export {
  createInteractionsHandler,
  type InteractionsOptions,
  SIGNATURE_HEADER,
  SIGNATURE_MAX_AGE_MS,
  TIMESTAMP_HEADER,
} from "./interactions.ts";
export { DiscordIdentity, OutboundRegistry, userIdOfToken } from "./origin.ts";
export { discordEmoji, ownReactionRoute } from "./reactions.ts";
export { type DiscordInbound, discordInboundSchema } from "./receive.ts";
export {
  DISCORD_INTENTS,
  GATEWAY_CURSOR,
  type GatewayReceiverOptions,
  gatewayAccountError,
} from "./receiver.ts";
export {
  type DiscordAllowedMentions,
  type DiscordFileSource,
  type DiscordSendOptions,
  type DiscordUnitPayload,
  discordOptionsOf,
  withDiscordOptions,
} from "./render.ts";
export { channelOf, messageRef, NONCE_MAX_LENGTH, nonceOf, parseMessageRef } from "./send.ts";

/**
 * What the Discord channel can do under `config`: text up to `maxTextLength` (chunked), files,
 * replies and threads (no threads in DMs), edits and deletes (live previews at 5 edits per 5 s
 * per channel), a native idempotency key (the enforced nonce) trusted for
 * {@link DISCORD_NONCE_WINDOW_MS}, and Discord's rate limits (global per bot, per channel).
 */
export function discordCapabilities(config: DiscordConfig): MessageCapabilities {
  const limits = config.rateLimits;
  return {
    text: { maxLength: config.maxTextLength, chunking: true },
    // Inbound attachments: streamed from their CDN url under the caller's cap.
    attachments: { upload: true, remoteUrl: true, receive: true },
    // PUT / DELETE …/reactions/{emoji}/@me: 204 whether or not it was already so.
    reactions: { add: true, remove: true, receive: true, repeat: "idempotent" },
    // Message components (custom_id = MessageAction.id); clicks on the interactions endpoint.
    actions: { buttons: true, receive: true, maxButtons: 25, maxIdBytes: 100 },
    // Create DM answers the existing DM channel. No ephemeral messages outside interactions.
    directMessages: { open: true },
    // Get Channel Messages (100 per call; a thread is its own channel).
    history: { conversation: true, thread: true, maxLimit: DISCORD_HISTORY_LIMIT },
    threads: { reply: true, nativeThread: true, inDirect: false },
    live: {
      edit: true,
      delete: true,
      progress: true,
      editRate: { limit: limits.perChannel, intervalMs: limits.perChannelIntervalMs },
    },
    delivery: {
      idempotencyKey: true,
      idempotencyWindowMs: DISCORD_NONCE_WINDOW_MS,
      requestTimeoutMs: config.requestTimeoutMs,
      retryAfter: true,
      receiptRequired: true,
      unknownSendPolicy: config.unknownSendPolicy,
      freshSendOnEditNotFound: true,
    },
    rateLimits: [
      { scope: "account", limit: limits.globalPerSecond, intervalMs: 1_000 },
      { scope: "route", limit: limits.perChannel, intervalMs: limits.perChannelIntervalMs },
    ],
  };
}

/**
 * The route key of a call as Discord buckets it, major parameter (the channel) included:
 * `POST /channels/123/messages`, `PATCH /channels/123/messages/:id`,
 * `DELETE /channels/123/messages/:id`.
 */
export function discordRateLimitRoute(call: RateLimitRouteInput): string {
  const fallback = channelOf(call.target);
  const channel = call.part?.platformMessageId
    ? safeChannel(call.part.platformMessageId, fallback)
    : fallback;
  if (call.operation === "edit") return `PATCH /channels/${channel}/messages/:id`;
  if (call.operation === "delete") return `DELETE /channels/${channel}/messages/:id`;
  // Discord's reaction bucket is per channel and shared by every emoji.
  if (call.operation === "react") return `PUT /channels/${channel}/messages/:id/reactions`;
  return `POST /channels/${channel}/messages`;
}

function safeChannel(ref: string, fallback: string): string {
  try {
    return parseMessageRef(ref, fallback).channel;
  } catch {
    return fallback;
  }
}

/** The bot's identity as far as the config and the token tell it (READY completes it). */
export function identityOf(config: DiscordConfig, token: string): DiscordIdentity {
  return new DiscordIdentity({
    userId: userIdOfToken(token),
    applicationId: config.applicationId,
    webhookIds: config.webhookIds,
  });
}

/**
 * Builds the receiver of one bot: the gateway (discord.js `Client`, RESUME across restarts),
 * and with `config.interactions` the interactions endpoint (`webhook`, Ed25519-verified).
 *
 * @param identity - filled in from READY; share it with the adapter.
 * @param accountId - the herald account, named when the gateway refuses it for good.
 */
export function createDiscordReceiver(
  config: DiscordConfig,
  token: string,
  sink: ChannelReceiverSink,
  identity: DiscordIdentity = identityOf(config, token),
  accountId?: string,
): ChannelReceiver {
  const gateway = createGatewayReceiver({
    config,
    token,
    sink,
    identity,
    ...(accountId !== undefined ? { accountId } : {}),
  });
  if (!config.interactions) return gateway;
  const webhook = createInteractionsHandler({ publicKey: config.interactions.publicKey, sink });
  return {
    start: (signal) => gateway.start(signal),
    stop: () => gateway.stop(),
    health: () => gateway.health?.() ?? { state: "down", since: Date.now() },
    webhook,
  };
}

/**
 * Builds the Discord adapter for one bot.
 *
 * @param config - a validated config (`discordConfigSchema.parse(...)`).
 * @param token - the bot token.
 * @param registry - the ids of messages this adapter created (echo recognition).
 * @param identity - who the bot is: from the token, the config, and READY once the receiver is up.
 */
export function createDiscordAdapter(
  config: DiscordConfig,
  token: string,
  registry: OutboundRegistry = new OutboundRegistry(),
  identity: DiscordIdentity = identityOf(config, token),
): ChannelMessageAdapter {
  const rest = new DiscordRest({
    token,
    apiBase: config.apiBase,
    timeoutMs: config.requestTimeoutMs,
  });
  const receive = {
    ...createReceive(identity, registry),
    fetchAttachment: createFetchAttachment(DISCORD_CHANNEL_ID),
  };
  return defineChannelMessageAdapter({
    id: DISCORD_CHANNEL_ID,
    capabilities: discordCapabilities(config),
    render: createRender(config),
    send: { ...createSend({ rest, registry, config, token }), react: createReact(rest) },
    live: createLive(rest, config),
    receive,
    rateLimitRoute: discordRateLimitRoute,
    directMessages: createDirect(rest),
    history: createHistory(rest, receive, identity),
  });
}

/**
 * Opens one bot: `GET /users/@me` (identity and credentials check), then the adapter and the
 * gateway receiver, sharing one identity (READY adds the application id).
 *
 * @throws ChannelAccountError when Discord rejects the token (401) — the gateway stops this
 *   account and starts the others; a network failure throws a plain error (retried).
 */
export async function createDiscordAccount(
  config: DiscordConfig,
  deps: ChannelAccountDeps,
): Promise<ChannelAccount> {
  const token = readSecret(deps, discordSecrets.botToken(config));
  const me = await fetchSelf(config, token, deps.accountId, deps.signal);
  const identity = identityOf(config, token);
  identity.set(me.id);
  const registry = new OutboundRegistry();
  const adapter = createDiscordAdapter(config, token, registry, identity);
  const receiver = createDiscordReceiver(config, token, deps.sink, identity, deps.accountId);
  return {
    adapter,
    receiver,
    identity: { id: me.id, name: me.username, otherIds: identity.ids().filter((i) => i !== me.id) },
    close: async () => {},
  };
}

/** The Discord channel plugin. */
const discord = defineChannelPlugin<DiscordConfig>({
  id: DISCORD_CHANNEL_ID,
  configSchema: discordConfigSchema,
  createAdapter: (config, deps) =>
    createDiscordAdapter(config, readSecret(deps, discordSecrets.botToken(config))),
  createReceiver: (config, sink, deps) =>
    createDiscordReceiver(
      config,
      readSecret(deps, discordSecrets.botToken(config)),
      sink,
      undefined,
      deps.accountId,
    ),
  createAccount: createDiscordAccount,
  checkCredentials: checkDiscordCredentials,
});

export default discord;
