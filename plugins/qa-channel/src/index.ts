/**
 * `@herald/plugin-qa-channel`: the QA channel — a real loopback chat platform (HTTP API, event
 * stream, web chat page; see `./testing`) and its herald channel plugin. It is exactly-once by
 * default (the platform deduplicates client keys); its `delivery` setting switches to
 * reconciliation, at-least-once or hold so every recovery path of herald can be exercised.
 *
 * @example herald.config.json
 * { "channels": [{ "plugin": "@herald/plugin-qa-channel", "config": { "baseUrl": "http://127.0.0.1:4610" } }] }
 *
 * @packageDocumentation
 */
import {
  type ChannelAccount,
  type ChannelAccountDeps,
  ChannelAccountError,
  type ChannelMessageAdapter,
  type ChannelReceiver,
  type ChannelReceiverSink,
  defineChannelMessageAdapter,
  defineChannelPlugin,
  limitStream,
  type MessageCapabilities,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import { QaClient } from "./client.ts";
import { type QaConfig, qaConfigSchema, qaSecrets } from "./config.ts";
import { QaApiError } from "./errors.ts";
import { createLive } from "./live.ts";
import { qaOrigin } from "./origin.ts";
import { createReceive, messageOf, QA_CHANNEL_ID } from "./receive.ts";
import { createQaReceiver } from "./receiver.ts";
import { createRender } from "./render.ts";
import { createSend } from "./send.ts";
import { QA_MAX_UPLOAD_BYTES } from "./wire.ts";

export { botIdOfToken, QaClient, type QaClientOptions } from "./client.ts";
export {
  type QaConfig,
  type QaConfigInput,
  type QaDeliveryMode,
  qaConfigSchema,
  qaDeliveryModeSchema,
} from "./config.ts";
export {
  classifyError,
  QaApiError,
  QaNetworkError,
  type QaNetworkFailure,
  QaRenderError,
} from "./errors.ts";
export { QA_CHANNEL_ID } from "./receive.ts";
export type { QaUnitPayload } from "./render.ts";
export type { QaWireEvent, QaWireMessage } from "./wire.ts";

/** What the QA channel can do under `config`. */
export function qaCapabilities(config: QaConfig): MessageCapabilities {
  return {
    text: { maxLength: config.maxLength, chunking: true },
    threads: { reply: true, nativeThread: true, inDirect: true },
    // [H23]: every feature beyond text, on the QA platform's own API.
    attachments: {
      upload: true,
      remoteUrl: false,
      maxUploadBytes: QA_MAX_UPLOAD_BYTES,
      receive: true,
    },
    reactions: { add: true, remove: true, receive: true, repeat: "idempotent" },
    directMessages: { open: true },
    actions: { buttons: true, receive: true, maxButtons: 5, maxIdBytes: 64 },
    ephemeral: true,
    history: { conversation: true, thread: true, maxLimit: 100 },
    live: { edit: true, delete: true, progress: true, editRate: config.editRate },
    delivery: {
      idempotencyKey: config.delivery === "idempotent",
      // The QA platform keeps client keys for as long as it runs: no window to declare.
      requestTimeoutMs: config.requestTimeoutMs,
      // A lookup by client key is exact once a timed-out post could have been stored.
      ...(config.delivery === "reconcile" ? { reconcile: { notSent: "complete" as const } } : {}),
      retryAfter: true,
      receiptRequired: true,
      unknownSendPolicy: config.delivery === "at_least_once" ? "at_least_once" : "hold",
      freshSendOnEditNotFound: true,
    },
  };
}

function clientOf(config: QaConfig, token: string): QaClient {
  return new QaClient({ baseUrl: config.baseUrl, token, timeoutMs: config.requestTimeoutMs });
}

/**
 * Builds the QA channel adapter for one bot account.
 *
 * @param config - a validated config (`qaConfigSchema.parse(...)`).
 * @param token - the bot token `<bot id>:<secret>`.
 * @throws TypeError when the token is malformed.
 */
export function createQaAdapter(config: QaConfig, token: string): ChannelMessageAdapter {
  const client = clientOf(config, token);
  return defineChannelMessageAdapter({
    id: QA_CHANNEL_ID,
    capabilities: qaCapabilities(config),
    render: createRender(config.maxLength),
    send: createSend(client, config.delivery),
    live: createLive(client, config.typingRefreshMs, config.nativeStream),
    origin: qaOrigin,
    receive: {
      ...createReceive(client.botId),
      fetchAttachment: async (ctx, attachment, options) => {
        if (attachment.platformFileId === undefined)
          throw new TypeError("qa: an attachment without platformFileId cannot be fetched");
        const body = await client.download(attachment.platformFileId, options.signal ?? ctx.signal);
        return limitStream(body, options.maxBytes, {
          name: attachment.name ?? attachment.platformFileId,
          channel: QA_CHANNEL_ID,
        });
      },
    },
    directMessages: {
      async open(ctx, { userId }) {
        const chat = await client.openDm(userId, ctx.signal);
        return { kind: "direct", id: chat.id };
      },
    },
    history: {
      async list(ctx, query) {
        const messages = await client.history(
          query.target.nativeChannelId ?? query.target.id,
          {
            limit: query.limit,
            ...(query.before !== undefined ? { before: query.before } : {}),
            ...(query.threadId !== undefined ? { thread_id: query.threadId } : {}),
          },
          ctx.signal,
        );
        return messages.map((m) =>
          messageOf(
            m,
            client.botId,
            ctx.accountId !== undefined ? { accountId: ctx.accountId } : {},
          ),
        );
      },
    },
  });
}

/** Builds the QA event-stream receiver for one bot account, delivering into `sink`. */
export function createQaReceiverFor(
  config: QaConfig,
  token: string,
  sink: ChannelReceiverSink,
): ChannelReceiver {
  return createQaReceiver(clientOf(config, token), sink, {
    reconnectDelayMs: config.reconnectDelayMs,
  });
}

/**
 * Opens one QA bot account: `GET /me` checks the token (a rejected one stops this account with
 * the fix, the others start) and names the bot; then the adapter and the event-stream receiver.
 *
 * @throws ChannelAccountError when the platform answers 401/403.
 */
export async function createQaAccount(
  config: QaConfig,
  deps: ChannelAccountDeps,
): Promise<ChannelAccount> {
  const token = readSecret(deps, qaSecrets.botToken(config));
  let me: { id: string; name: string };
  try {
    me = await clientOf(config, token).me(deps.signal);
  } catch (error) {
    if (error instanceof QaApiError && (error.status === 401 || error.status === 403))
      throw new ChannelAccountError(
        QA_CHANNEL_ID,
        deps.accountId,
        `the QA platform rejected the token (${error.status})`,
        `check the token in ${config.tokenSecret} (and baseUrl ${config.baseUrl})`,
      );
    throw error;
  }
  return {
    adapter: createQaAdapter(config, token),
    receiver: createQaReceiverFor(config, token, deps.sink),
    identity: { id: me.id, name: me.name },
    close: async () => {},
  };
}

/** The QA channel plugin. */
const qaChannel = defineChannelPlugin<QaConfig>({
  id: QA_CHANNEL_ID,
  configSchema: qaConfigSchema,
  createAdapter: (config, deps) =>
    createQaAdapter(config, readSecret(deps, qaSecrets.botToken(config))),
  createReceiver: (config, sink, deps) =>
    createQaReceiverFor(config, readSecret(deps, qaSecrets.botToken(config)), sink),
  createAccount: createQaAccount,
});

export default qaChannel;
