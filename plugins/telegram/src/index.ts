/**
 * `@herald/plugin-telegram`: the Telegram channel for herald, on grammY. Durable sends as plain
 * text + entities (no `parse_mode`), media with captions, forum topics, inline keyboards, live
 * previews and typing, a long-polling receiver that never confirms unfinished updates, and a
 * webhook receiver.
 *
 * @example herald.config.json
 * { "channels": [{ "plugin": "@herald/plugin-telegram", "config": { "tokenEnv": "TELEGRAM_BOT_TOKEN" } }] }
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
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import { checkTelegramCredentials, getMe } from "./account.ts";
import { botIdOfToken, createTelegramApi } from "./client.ts";
import { type TelegramConfig, telegramConfigSchema, telegramSecrets } from "./config.ts";
import { createDirect } from "./direct.ts";
import { createFetchAttachment } from "./files.ts";
import { OutboundLedger } from "./ledger.ts";
import { createLive } from "./live.ts";
import { createReact } from "./reactions.ts";
import { BotIdentity, createReceive, TELEGRAM_CHANNEL_ID } from "./receive.ts";
import { createPollingReceiver } from "./receiver.ts";
import { createProbe } from "./reconcile.ts";
import { createRender } from "./render.ts";
import { createSend } from "./send.ts";
import { createWebhookReceiver } from "./webhook.ts";

export { checkTelegramCredentials } from "./account.ts";
export { botIdOfToken, createTelegramApi, type TelegramApiOptions } from "./client.ts";
export {
  TELEGRAM_ALLOWED_UPDATES,
  TELEGRAM_CAPTION_LIMIT,
  TELEGRAM_TEXT_LIMIT,
  type TelegramConfig,
  type TelegramConfigInput,
  type TelegramPollingConfig,
  type TelegramWebhookConfig,
  telegramConfigSchema,
} from "./config.ts";
export {
  classifyError,
  redactToken,
  TelegramApiError,
  type TelegramErrorParameters,
  TelegramNetworkError,
  type TelegramNetworkFailure,
  TelegramRenderError,
} from "./errors.ts";
export { TELEGRAM_CHANNEL_ID } from "./receive.ts";
export {
  type TelegramMediaMethod,
  type TelegramMediaSource,
  type TelegramSendOptions,
  type TelegramUnitPayload,
  telegramOptionsOf,
  withTelegramOptions,
} from "./render.ts";
export { GENERAL_TOPIC_ID, messageRef, parseMessageRef } from "./send.ts";
export { type TelegramUpdate, updateSchema } from "./updates.ts";
export { SECRET_TOKEN_HEADER } from "./webhook.ts";

/**
 * What the Telegram channel can do under `config`: text up to `maxTextLength` UTF-16 units
 * (chunked), media with captions up to `maxCaptionLength`, replies and forum topics, edits and
 * deletes (live previews at one update per `previewIntervalMs` per chat), no idempotency key,
 * and the Bot API's rate limits (30 messages/s per bot, 1/s per chat, 20/min per group).
 */
export function telegramCapabilities(config: TelegramConfig): MessageCapabilities {
  const limits = config.rateLimits;
  return {
    text: { maxLength: config.maxTextLength, chunking: true },
    attachments: {
      upload: true,
      remoteUrl: true,
      voice: true,
      maxCaptionLength: config.maxCaptionLength,
      // getFile + download, streamed under the caller's cap (Bot API: 20 MB at most).
      receive: true,
    },
    // setMessageReaction sets the bot's whole list (one emoji): a repeat changes nothing.
    reactions: { add: true, remove: true, receive: true, repeat: "replaces_set" },
    // Inline keyboards (callback_data = MessageAction.id, ≤ 64 bytes); presses as callback queries.
    actions: { buttons: true, receive: true, maxButtons: 100, maxIdBytes: 64 },
    // The user's id is the chat id, once they started the bot. No ephemeral, no history API.
    directMessages: { open: true, requiresUserFirst: true },
    // Private-chat topics (Bot API 9.x) are not mapped yet: no threads in DMs.
    threads: { reply: true, topic: true, inDirect: false },
    live: {
      edit: true,
      delete: true,
      progress: true,
      editRate: { limit: 1, intervalMs: config.previewIntervalMs },
    },
    delivery: {
      idempotencyKey: false,
      requestTimeoutMs: config.requestTimeoutMs,
      retryAfter: true,
      receiptRequired: true,
      unknownSendPolicy: config.unknownSendPolicy,
      freshSendOnEditNotFound: true,
    },
    rateLimits: [
      { scope: "account", limit: limits.perBotPerSecond, intervalMs: 1_000 },
      { scope: "chat", limit: limits.perChatPerSecond, intervalMs: 1_000 },
      {
        scope: "chat",
        limit: limits.perGroupPerMinute,
        intervalMs: 60_000,
        targetKinds: ["group", "thread"],
      },
    ],
  };
}

/**
 * Builds the Telegram adapter for one bot.
 *
 * @param config - a validated config (`telegramConfigSchema.parse(...)`).
 * @param token - the bot token `<bot id>:<secret>`.
 * @throws TypeError when the token is malformed.
 */
export function createTelegramAdapter(
  config: TelegramConfig,
  token: string,
): ChannelMessageAdapter {
  const api = createTelegramApi({
    token,
    apiRoot: config.apiRoot,
    timeoutMs: config.requestTimeoutMs,
  });
  const ledger = new OutboundLedger();
  const identity = new BotIdentity(botIdOfToken(token), api, config.botUsername);
  const send = createSend({ api, ledger, token });
  send.react = createReact(api);
  if (config.reconcile === "probe") {
    send.reconcileUnknownSend = createProbe({
      api,
      ledger,
      maxProbes: config.maxProbes,
      probeIntervalMs: Math.ceil(1_000 / config.rateLimits.perChatPerSecond),
    });
  }
  return defineChannelMessageAdapter({
    id: TELEGRAM_CHANNEL_ID,
    capabilities: telegramCapabilities(config),
    render: createRender(config),
    send,
    live: createLive(api, config),
    receive: {
      ...createReceive(identity, ledger),
      fetchAttachment: createFetchAttachment(
        TELEGRAM_CHANNEL_ID,
        api,
        (path) => `${config.apiRoot}/file/bot${token}/${path}`,
      ),
    },
    directMessages: createDirect(TELEGRAM_CHANNEL_ID, api),
  });
}

/**
 * Builds the receiver of one bot: long polling or a webhook handler, per `config.receive`.
 *
 * @param secretToken - the webhook secret (webhook mode only).
 * @param accountId - the account, named when a revoked token stops polling.
 * @throws TypeError when the webhook mode has no valid secret token.
 */
export function createTelegramReceiver(
  config: TelegramConfig,
  token: string,
  sink: ChannelReceiverSink,
  secretToken?: string,
  accountId?: string,
): ChannelReceiver {
  const receive = config.receive;
  if (receive.mode === "webhook") {
    const api = createTelegramApi({
      token,
      apiRoot: config.apiRoot,
      timeoutMs: config.requestTimeoutMs,
    });
    return createWebhookReceiver({ api, sink, config: receive, secretToken: secretToken ?? "" });
  }
  const api = createTelegramApi({
    token,
    apiRoot: config.apiRoot,
    timeoutMs: (receive.pollTimeoutSeconds + 15) * 1_000,
  });
  return createPollingReceiver({ api, sink, config: receive, accountId });
}

/**
 * Opens one bot: `getMe` (identity and credentials check), then the adapter — with the
 * username from `getMe` unless the config names one — and the receiver of `config.receive`.
 *
 * @throws ChannelAccountError when Telegram rejects the token (401/404) — the gateway stops this
 *   account and starts the others; a network failure throws a plain error (retried).
 */
export async function createTelegramAccount(
  config: TelegramConfig,
  deps: ChannelAccountDeps,
): Promise<ChannelAccount> {
  const token = readSecret(deps, telegramSecrets.botToken(config));
  const secretToken =
    config.receive.mode === "webhook"
      ? readSecret(deps, telegramSecrets.webhookSecret(config.receive))
      : undefined;
  const me = await getMe(config, token, deps.accountId, deps.signal);
  const adapter = createTelegramAdapter(
    { ...config, botUsername: config.botUsername ?? me.username },
    token,
  );
  const receiver = createTelegramReceiver(config, token, deps.sink, secretToken, deps.accountId);
  return {
    adapter,
    receiver,
    identity: { id: String(me.id), name: me.username },
    close: async () => {},
  };
}

/** The Telegram channel plugin. */
const telegram = defineChannelPlugin<TelegramConfig>({
  id: TELEGRAM_CHANNEL_ID,
  configSchema: telegramConfigSchema,
  createAdapter: (config, deps) =>
    createTelegramAdapter(config, readSecret(deps, telegramSecrets.botToken(config))),
  createReceiver: (config, sink, deps) =>
    createTelegramReceiver(
      config,
      readSecret(deps, telegramSecrets.botToken(config)),
      sink,
      config.receive.mode === "webhook"
        ? readSecret(deps, telegramSecrets.webhookSecret(config.receive))
        : undefined,
    ),
  createAccount: createTelegramAccount,
  checkCredentials: checkTelegramCredentials,
});

export default telegram;
