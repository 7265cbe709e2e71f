/**
 * `@herald/plugin-slack`: the Slack channel for herald, on `@slack/web-api`. Durable sends in
 * mrkdwn (the SDK's Slack dialect) with `thread_ts` from the thread model, message metadata
 * carrying herald's origin and unit marks, exactly-once by reconciling unknown sends against
 * history within a paced read budget, and live previews edited with `chat.update`.
 *
 * @example herald.config.json
 * { "channels": [{ "plugin": "@herald/plugin-slack", "config": { "tokenEnv": "SLACK_BOT_TOKEN" } }] }
 *
 * @packageDocumentation
 */
import {
  type ChannelAccount,
  type ChannelAccountDeps,
  type ChannelMessageAdapter,
  type ChannelPluginDeps,
  type ChannelReceiver,
  type ChannelReceiverSink,
  defineChannelMessageAdapter,
  defineChannelPlugin,
  type MessageCapabilities,
  ownValue,
  type RateLimitRouteInput,
  readSecret,
} from "@herald/plugin-sdk/channel-message";
import {
  checkSlackCredentials,
  identityOrAccountError,
  SLACK_CHANNEL_ID,
  type SlackIdentity,
} from "./account.ts";
import { createSlackCatchUpReceiver } from "./catchup.ts";
import { createSlackClient } from "./client.ts";
import { type SlackConfig, slackConfigSchema, slackSecrets } from "./config.ts";
import { IdentityCell } from "./identity.ts";
import { createLive } from "./live.ts";
import { slackOrigin } from "./origin.ts";
import { createReceive } from "./receive.ts";
import { createReconcile } from "./reconcile.ts";
import { createRender } from "./render.ts";
import { createSend, DispatchLog } from "./send.ts";
import { createSocketReceiver } from "./socket.ts";
import { channelOf } from "./target.ts";
import { createUploader } from "./upload.ts";
import { createEventsReceiver } from "./webhook.ts";

export {
  checkSlackCredentials,
  readIdentity,
  SLACK_CHANNEL_ID,
  type SlackIdentity,
} from "./account.ts";
export { HistoryBudget } from "./budget.ts";
export {
  advancePosition,
  createSlackCatchUpReceiver,
  type SlackCatchUpOptions,
  type SlackCatchUpReport,
  type SlackPosition,
} from "./catchup.ts";
export { createSlackClient, type SlackClientOptions } from "./client.ts";
export {
  SLACK_HISTORY_PAGE_LIMIT,
  SLACK_STREAM_CHUNK_LIMIT,
  SLACK_TEXT_LIMIT,
  type SlackConfig,
  type SlackConfigInput,
  type SlackEventsConfig,
  slackConfigSchema,
} from "./config.ts";
export {
  classifyError,
  kindOfSlackCode,
  SlackAnswerError,
  SlackNetworkError,
  SlackRateLimitWithoutWaitError,
  SlackRenderError,
  SlackUploadError,
} from "./errors.ts";
export {
  decodeOrigin,
  GATEWAY_FAILURE_EVENT_TYPE,
  HERALD_EVENT_TYPE,
  intentMark,
  type SlackMetadata,
  unitMarkOf,
  unitMetadata,
} from "./origin.ts";
export type {
  SlackFilePayload,
  SlackImagePayload,
  SlackTextPayload,
  SlackUnitPayload,
} from "./render.ts";
export { createSocketReceiver, type SocketReceiverOptions } from "./socket.ts";
export {
  messageRef,
  parseMessageRef,
  permalinkOf,
  placementOf,
  type SlackPlacement,
} from "./target.ts";
export {
  checkSlackSignature,
  createEventsReceiver,
  type EventsAuthFailure,
  type EventsReceiverOptions,
  parseSlackBody,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
} from "./webhook.ts";

/**
 * What the Slack channel can do under `config`: text up to `maxTextLength` UTF-16 units
 * (chunked), threads (also in DMs), edits and deletes (live previews at one update per
 * `previewIntervalMs` per channel), no idempotency key but a reconciler whose `not_sent` is
 * complete within what it reads (else `unresolved` → `unknownSendPolicy`), and Slack's method
 * tiers as rate limits.
 */
export function slackCapabilities(config: SlackConfig): MessageCapabilities {
  const limits = config.rateLimits;
  return {
    text: { maxLength: config.maxTextLength, chunking: true },
    attachments: { upload: true, remoteUrl: true },
    threads: { reply: true, nativeThread: true, inDirect: true },
    live: {
      edit: true,
      delete: true,
      ...(config.nativeStreaming ? { nativeStream: true } : {}),
      editRate: { limit: 1, intervalMs: config.previewIntervalMs },
    },
    delivery: {
      idempotencyKey: false,
      requestTimeoutMs: config.requestTimeoutMs,
      reconcile: { notSent: "complete", visibilityLagMs: config.reconcile.visibilityLagMs },
      retryAfter: true,
      receiptRequired: true,
      unknownSendPolicy: config.unknownSendPolicy,
      freshSendOnEditNotFound: true,
    },
    rateLimits: [
      // chat.postMessage: ~1 per second per channel (special tier); a stream start is a post.
      {
        id: "slack.chat.postMessage",
        scope: "chat",
        limit: limits.postsPerChannelPerSecond,
        intervalMs: 1_000,
        operations: ["send", "stream_begin"],
      },
      // chat.update: Tier 3, per workspace.
      {
        id: "slack.chat.update",
        scope: "account",
        limit: limits.updatesPerMinute,
        intervalMs: 60_000,
        operations: ["edit"],
      },
      {
        id: "slack.chat.delete",
        scope: "account",
        limit: limits.deletesPerMinute,
        intervalMs: 60_000,
        operations: ["delete"],
      },
      {
        id: "slack.chat.appendStream",
        scope: "account",
        limit: limits.appendsPerMinute,
        intervalMs: 60_000,
        operations: ["stream_append"],
      },
      {
        id: "slack.chat.stopStream",
        scope: "account",
        limit: limits.stopsPerMinute,
        intervalMs: 60_000,
        operations: ["stream_finish"],
      },
    ],
  };
}

/** The Web API method a rate-limited operation calls, with the channel for per-channel methods. */
export function slackRateLimitRoute(call: RateLimitRouteInput): string {
  switch (call.operation) {
    case "send":
      return `chat.postMessage:${channelOf(call.target)}`;
    case "edit":
      return "chat.update";
    case "delete":
      return "chat.delete";
    case "react":
      return "reactions.add";
    case "stream_begin":
      return `chat.startStream:${channelOf(call.target)}`;
    case "stream_append":
      return "chat.appendStream";
    case "stream_finish":
      return "chat.stopStream";
  }
}

/** Options of {@link createSlackAdapter}. */
export type SlackAdapterOptions = {
  /** The bot token (`xoxb-…`). */
  token: string;
  /** The bot's identity from `auth.test`; read on first need when absent. */
  identity?: SlackIdentity;
  /** Secrets besides the token to redact from failures (the signing secret). */
  secrets?: readonly string[];
};

/**
 * Builds the Slack adapter for one bot in one workspace.
 *
 * @param config - a validated config (`slackConfigSchema.parse(...)`).
 */
export function createSlackAdapter(
  config: SlackConfig,
  options: SlackAdapterOptions,
): ChannelMessageAdapter {
  const client = createSlackClient({
    token: options.token,
    slackApiUrl: config.slackApiUrl,
    timeoutMs: config.requestTimeoutMs,
  });
  const secrets = [options.token, ...(options.secrets ?? [])];
  const identity = new IdentityCell(client, options.identity);
  // Read the identity now (own echoes and reconciliation need it); a failure is retried on use.
  if (!options.identity) identity.get().catch(() => {});
  const dispatches = new DispatchLog();
  const send = createSend({
    client,
    config,
    dispatches,
    identity,
    uploader: createUploader({ client, config }),
    secrets,
  });
  send.reconcileUnknownSend = createReconcile({ client, identity, dispatches, config, secrets });
  return defineChannelMessageAdapter({
    id: SLACK_CHANNEL_ID,
    capabilities: slackCapabilities(config),
    render: createRender(config),
    send,
    origin: slackOrigin,
    live: createLive({ client, config, secrets }),
    receive: createReceive({ identity, config }),
    rateLimitRoute: slackRateLimitRoute,
  });
}

/** Secrets a Slack receiver needs, by mode. */
export type SlackReceiverSecrets = {
  /** Events API: the app's signing secret. */
  signingSecret?: string;
  /** Socket Mode: the app-level token (`xapp-…`). */
  appToken?: string;
};

/**
 * Builds the receiver of one account: the Events API webhook (`receive.mode: "events"`) or the
 * Socket Mode connection (`receive.mode: "socket"`).
 *
 * @throws TypeError when the mode's secret (signing secret / app-level token) is missing.
 */
export function createSlackReceiver(
  config: SlackConfig,
  sink: ChannelReceiverSink,
  secrets: SlackReceiverSecrets,
  options: {
    clock?: () => number;
    /**
     * The bot token and identity for inbound catch-up (`config.catchUp`): given, the receiver
     * reads what was missed at each start. @defaultValue none (no catch-up)
     */
    catchUp?: { token: string; identity?: SlackIdentity };
  } = {},
): ChannelReceiver {
  const catchUp = options.catchUp;
  if (!catchUp || !config.catchUp.enabled) return liveReceiver(config, sink, secrets, options);
  const client = createSlackClient({
    token: catchUp.token,
    slackApiUrl: config.slackApiUrl,
    timeoutMs: config.requestTimeoutMs,
  });
  const identity = new IdentityCell(client, catchUp.identity);
  const secretList = [catchUp.token, ...Object.values(secrets).filter((x): x is string => !!x)];
  return createSlackCatchUpReceiver({
    client,
    sink,
    receiver: (observed) => liveReceiver(config, observed, secrets, options),
    config,
    identity: () => identity.get(),
    secrets: secretList,
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** The live receiver of `config.receive`: Events API webhook or Socket Mode. */
function liveReceiver(
  config: SlackConfig,
  sink: ChannelReceiverSink,
  secrets: SlackReceiverSecrets,
  options: { clock?: () => number },
): ChannelReceiver {
  const receive = config.receive;
  if (receive.mode === "socket") {
    if (!secrets.appToken) {
      throw new TypeError(`Slack Socket Mode needs the app-level token in ${receive.appTokenEnv}`);
    }
    return createSocketReceiver({
      sink,
      appToken: secrets.appToken,
      slackApiUrl: config.slackApiUrl,
      requestTimeoutMs: config.requestTimeoutMs,
      ackDeadlineMs: 2_500,
      accountOfTeam: (team) => ownValue(receive.teams, team),
    });
  }
  if (!secrets.signingSecret) {
    throw new TypeError(
      `the Slack Events API needs the signing secret in ${receive.signingSecretEnv}`,
    );
  }
  return createEventsReceiver({
    sink,
    signingSecret: secrets.signingSecret,
    config: receive,
    accountOfTeam: (team) => ownValue(receive.teams, team),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** The receiver secrets of `config`, read through `secret`. */
function receiverSecrets(
  config: SlackConfig,
  deps: Pick<ChannelPluginDeps, "accountId" | "secret">,
): SlackReceiverSecrets {
  return config.receive.mode === "events"
    ? { signingSecret: readSecret(deps, slackSecrets.signingSecret(config.receive)) }
    : { appToken: readSecret(deps, slackSecrets.appToken(config.receive)) };
}

/**
 * Opens one bot in one workspace: `auth.test` (identity and credentials check), then the
 * adapter with that identity and the receiver of `config.receive`.
 *
 * @throws ChannelAccountError when Slack rejects the token — the gateway stops this account and
 *   starts the others; a network failure throws a plain error (retried).
 */
export async function createSlackAccount(
  config: SlackConfig,
  deps: ChannelAccountDeps,
): Promise<ChannelAccount> {
  const token = readSecret(deps, slackSecrets.botToken(config));
  const client = createSlackClient({
    token,
    slackApiUrl: config.slackApiUrl,
    timeoutMs: config.requestTimeoutMs,
  });
  const me = await identityOrAccountError(config, client, token, deps.accountId);
  const secrets = receiverSecrets(config, deps);
  const adapter = createSlackAdapter(config, {
    token,
    identity: me,
    secrets: Object.values(secrets).filter((s): s is string => typeof s === "string"),
  });
  const receiver = createSlackReceiver(config, deps.sink, secrets, {
    catchUp: { token, identity: me },
  });
  return {
    adapter,
    receiver,
    identity: {
      id: me.userId,
      otherIds: [me.botId, ...(me.appId ? [me.appId] : [])],
      ...(me.userName ? { name: me.userName } : {}),
    },
    close: async () => {},
  };
}

/** The Slack channel plugin. */
const slack = defineChannelPlugin<SlackConfig>({
  id: SLACK_CHANNEL_ID,
  configSchema: slackConfigSchema,
  createAdapter: (config, deps) =>
    createSlackAdapter(config, { token: readSecret(deps, slackSecrets.botToken(config)) }),
  createReceiver: (config, sink, deps) =>
    createSlackReceiver(config, sink, receiverSecrets(config, deps), {
      catchUp: { token: readSecret(deps, slackSecrets.botToken(config)) },
    }),
  createAccount: createSlackAccount,
  checkCredentials: checkSlackCredentials,
});

export default slack;
