/**
 * `@herald/plugin-googlechat`: the Google Chat channel for herald, on `@googleapis/chat`.
 * Exactly-once sends (a `requestId` and a client-assigned `messageId` per unit), threads
 * through the inbound's `thread.name` with `REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`, cardsV2 from
 * the neutral card, edits with `updateMask`, deletes, live previews, per-space and per-project
 * rate limits, and the threaded activity log (core's forwarder) on Chat threads.
 *
 * @example herald.config.json
 * { "channels": [{ "plugin": "@herald/plugin-googlechat", "config": {
 *   "credentials": { "type": "service_account", "keyJsonEnv": "GOOGLE_CHAT_KEY" },
 *   "receive": { "audience": { "type": "endpoint_url", "url": "https://bot.example.com/webhooks/googlechat/main" } } } }] }
 *
 * @packageDocumentation
 */
import {
  type ChannelAccount,
  type ChannelAccountDeps,
  ChannelAccountError,
  type ChannelMessageAdapter,
  type ChannelPluginDeps,
  type ChannelReceiver,
  type ChannelReceiverSink,
  defineChannelMessageAdapter,
  defineChannelPlugin,
  type MessageCapabilities,
} from "@herald/plugin-sdk/channel-message";
import { GOOGLE_CHAT_MAX_BUTTONS } from "./actions.ts";
import { credentialsOf, type GoogleChatCredentials } from "./auth.ts";
import { createGoogleChatCatchUpReceiver } from "./catchup.ts";
import { createChatApi } from "./client.ts";
import { type GoogleChatConfig, googleChatConfigSchema } from "./config.ts";
import { classifyError } from "./errors.ts";
import { createDirect, createFetchAttachment, createSendEphemeral } from "./features.ts";
import { APP_USER_ALIAS, createReceive } from "./receive.ts";
import { createRender } from "./render.ts";
import { createSend } from "./send.ts";
import { createWebhookReceiver } from "./webhook.ts";

export {
  actionOf,
  cardClickedSchema,
  cardWithActions,
  GOOGLE_CHAT_MAX_BUTTONS,
} from "./actions.ts";
export { accessTokenCredentials, credentialsOf, type GoogleChatCredentials } from "./auth.ts";
export {
  createGoogleChatCatchUpReceiver,
  type GoogleChatCatchUpOptions,
  type GoogleChatCatchUpReport,
  type GoogleChatPosition,
} from "./catchup.ts";
export { type ChatApi, type ChatApiOptions, createChatApi } from "./client.ts";
export {
  CHAT_BOT_SCOPE,
  CHAT_ISSUER_EMAIL,
  CHAT_JWT_CERTS_URL,
  GOOGLE_CHAT_ROOT_URL,
  GOOGLE_CHAT_TEXT_LIMIT,
  GOOGLE_ID_TOKEN_CERTS_URL,
  type GoogleChatConfig,
  type GoogleChatConfigInput,
  type GoogleChatReceiveConfig,
  googleChatConfigSchema,
} from "./config.ts";
export {
  classifyError,
  type GoogleApiErrorBody,
  GoogleChatApiError,
  GoogleChatNetworkError,
  GoogleChatRenderError,
  toGoogleChatError,
} from "./errors.ts";
export {
  eventSchema,
  type GoogleChatEvent,
  type GoogleChatMessageEvent,
  messageEventSchema,
} from "./events.ts";
export { createDirect, createFetchAttachment, createSendEphemeral } from "./features.ts";
export {
  isMessageName,
  isSpaceName,
  isThreadName,
  spaceNameOf,
  threadNameProblem,
} from "./names.ts";
export { APP_USER_ALIAS, isDirectSpace } from "./receive.ts";
export { cardV2Of, type GoogleChatUnitPayload, MARKUP_SYNTAX } from "./render.ts";
export { clientMessageId, REPLY_OPTION, requestIdOf, updateMaskOf } from "./send.ts";
export { type BearerCheck, createBearerVerifier, MAX_EVENT_BYTES } from "./webhook.ts";

/** The channel id. */
export const GOOGLE_CHAT_CHANNEL_ID = "googlechat";

/**
 * What the Google Chat channel can do under `config`: text up to `maxTextLength` characters
 * (chunked), threads (none in DMs: the activity log drops its entries there, seed "DM
 * behavior"), edits and deletes (previews at one edit per `previewIntervalMs` per space), a
 * native idempotency key with no documented expiry (requestId / messageId), reconciliation by
 * direct `GET` on the client-assigned id, no retry-after on 429, cards, and the documented
 * write limits (per space per second and minute, per project per minute).
 */
export function googleChatCapabilities(config: GoogleChatConfig): MessageCapabilities {
  const limits = config.rateLimits;
  return {
    text: { maxLength: config.maxTextLength, chunking: true },
    threads: { reply: true, nativeThread: true, inDirect: false },
    live: {
      edit: true,
      delete: true,
      progress: true,
      editRate: { limit: 1, intervalMs: config.previewIntervalMs },
    },
    delivery: {
      idempotencyKey: true,
      requestTimeoutMs: config.requestTimeoutMs,
      reconcile: { notSent: "complete", visibilityLagMs: 0 },
      retryAfter: false,
      receiptRequired: true,
      freshSendOnEditNotFound: true,
    },
    cards: config.cards,
    // [H23] cardsV2 buttons and CARD_CLICKED (app auth); text fallback with cards off.
    actions: {
      buttons: config.cards,
      receive: config.cards,
      maxButtons: GOOGLE_CHAT_MAX_BUTTONS,
    },
    // Uploads (media.upload), reactions (spaces.messages.reactions.*), spaces.setup and
    // spaces.messages.list need user authentication (no chat.bot scope in the API's discovery
    // document); herald authenticates as the app.
    attachments: { upload: false, remoteUrl: true, receive: true },
    // findDirectMessage only: an app cannot create a DM (spaces.setup is user auth).
    directMessages: { open: true, requiresUserFirst: true },
    // privateMessageViewer (app authentication only).
    ephemeral: true,
    reactions: { add: false, remove: false, receive: false, repeat: "idempotent" },
    rateLimits: [
      { id: "space-second", scope: "chat", limit: limits.perSpacePerSecond, intervalMs: 1_000 },
      { id: "space-minute", scope: "chat", limit: limits.perSpacePerMinute, intervalMs: 60_000 },
      {
        id: "project-minute",
        scope: "account",
        limit: limits.perProjectPerMinute,
        intervalMs: 60_000,
      },
    ],
  };
}

/**
 * Builds the Google Chat adapter of one account.
 *
 * @param config - a validated config (`googleChatConfigSchema.parse(...)`).
 * @param credentials - from {@link credentialsOf} (or `accessTokenCredentials` in tests).
 */
export function createGoogleChatAdapter(
  config: GoogleChatConfig,
  credentials: GoogleChatCredentials,
): ChannelMessageAdapter {
  const api = createChatApi({
    rootUrl: config.rootUrl,
    auth: credentials.auth,
    timeoutMs: config.requestTimeoutMs,
  });
  return defineChannelMessageAdapter({
    id: GOOGLE_CHAT_CHANNEL_ID,
    capabilities: googleChatCapabilities(config),
    render: createRender(config),
    send: {
      ...createSend({ api, secrets: credentials.secrets }),
      sendEphemeral: createSendEphemeral(api),
    },
    directMessages: createDirect(api),
    receive: {
      ...createReceive(config.appUser ? [config.appUser] : []),
      fetchAttachment: createFetchAttachment(api),
    },
  });
}

/**
 * Builds the HTTP endpoint receiver of one account (mounted at `/webhooks/googlechat/<account>`).
 * @throws TypeError when the config has no `receive` block (a send-only account).
 */
export function createGoogleChatReceiver(
  config: GoogleChatConfig,
  sink: ChannelReceiverSink,
  /** Credentials for inbound catch-up (`config.catchUp`); without them, no catch-up. */
  credentials?: GoogleChatCredentials,
): ChannelReceiver {
  if (!config.receive) {
    throw new TypeError(
      "googlechat: this account has no receive block (receive.audience): it is send-only",
    );
  }
  return withCatchUp(config, sink, createWebhookReceiver.bind(null, config.receive), credentials);
}

/**
 * The endpoint receiver, wrapped with catch-up when `config.catchUp.enabled` and credentials
 * to list with are given.
 */
function withCatchUp(
  config: GoogleChatConfig,
  sink: ChannelReceiverSink,
  live: (sink: ChannelReceiverSink) => ChannelReceiver,
  credentials: GoogleChatCredentials | undefined,
): ChannelReceiver {
  if (!credentials || !config.catchUp.enabled) return live(sink);
  const api = createChatApi({
    rootUrl: config.rootUrl,
    auth: credentials.auth,
    timeoutMs: config.requestTimeoutMs,
  });
  return createGoogleChatCatchUpReceiver({ api, sink, receiver: live, config });
}

/**
 * Checks the credentials with `spaces.list` (one result), for `herald doctor` and account start.
 * Never returns the secret: failures are redacted and say what to fix.
 */
export async function checkGoogleChatCredentials(
  config: GoogleChatConfig,
  deps: Pick<ChannelPluginDeps, "secret">,
): Promise<{ ok: boolean; detail: string }> {
  let secrets: string[] = [];
  try {
    const credentials = credentialsOf(config, deps);
    secrets = credentials.secrets;
    await createChatApi({
      rootUrl: config.rootUrl,
      auth: credentials.auth,
      timeoutMs: config.requestTimeoutMs,
    }).probe();
    return { ok: true, detail: `${credentials.source} accepted by ${config.rootUrl}` };
  } catch (error) {
    const failure = classifyError(error, secrets);
    return { ok: false, detail: `spaces.list failed (${failure.kind}): ${failure.message}` };
  }
}

/**
 * Opens one account: reads the credentials, proves them with `spaces.list` (a rejected
 * credential stops this account with a {@link ChannelAccountError}; a network failure is
 * retried by the gateway), then builds the adapter.
 */
export async function createGoogleChatAccount(
  config: GoogleChatConfig,
  deps: ChannelAccountDeps,
): Promise<ChannelAccount> {
  const credentials = credentialsOf(config, deps);
  const api = createChatApi({
    rootUrl: config.rootUrl,
    auth: credentials.auth,
    timeoutMs: config.requestTimeoutMs,
  });
  try {
    await api.probe(deps.signal);
  } catch (error) {
    const failure = classifyError(error, credentials.secrets);
    if (failure.kind === "auth" || failure.kind === "permission") {
      throw new ChannelAccountError(
        GOOGLE_CHAT_CHANNEL_ID,
        deps.accountId,
        `the Chat API rejected the credentials from ${credentials.source} (${failure.message})`,
        `check the service account key / token and that the Chat API is enabled for the project (rootUrl ${config.rootUrl})`,
      );
    }
    throw new Error(`spaces.list failed: ${failure.message}`);
  }
  return {
    adapter: createGoogleChatAdapter(config, credentials),
    ...(config.receive
      ? { receiver: createGoogleChatReceiver(config, deps.sink, credentials) }
      : {}),
    identity: { id: config.appUser ?? APP_USER_ALIAS, name: "Google Chat app" },
    close: async () => {},
  };
}

/** The Google Chat channel plugin. */
const googlechat = defineChannelPlugin<GoogleChatConfig>({
  id: GOOGLE_CHAT_CHANNEL_ID,
  configSchema: googleChatConfigSchema,
  createAdapter: (config, deps) => createGoogleChatAdapter(config, credentialsOf(config, deps)),
  createReceiver: (config, sink, deps) =>
    createGoogleChatReceiver(config, sink, credentialsOf(config, deps)),
  createAccount: createGoogleChatAccount,
  checkCredentials: checkGoogleChatCredentials,
});

export default googlechat;
export {
  DEFAULT_PLACEHOLDER_TEXT,
  type PlaceholderRuntime,
  startTypingPlaceholder,
  type TypingPlaceholder,
  type TypingPlaceholderOptions,
} from "./typing.ts";
