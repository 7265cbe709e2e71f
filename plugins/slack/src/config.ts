/**
 * Account config of the Slack channel, validated with zod (errors name the field path). Tokens
 * and the signing secret are never part of it: `tokenEnv`, `signingSecretEnv` and `appTokenEnv`
 * name the environment variables that hold them (DESIGN §11).
 *
 * Units: every duration is in milliseconds (`…Ms`); Slack's own seconds (`Retry-After`, `ts`)
 * are converted once, at the edge.
 *
 * @module
 */
import { type SecretSpec, z } from "@herald/plugin-sdk/channel-message";

/**
 * Slack's hard limit for `text`, in characters: longer text is truncated with a
 * `message_truncated` warning (https://api.slack.com/changelog/2018-04-truncating-really-long-messages).
 */
export const SLACK_TEXT_LIMIT = 40_000;
/** `markdown_text` per `chat.startStream` / `appendStream` / `stopStream` call (PLATFORMS §8). */
export const SLACK_STREAM_CHUNK_LIMIT = 12_000;
/** Messages per page Slack returns to non-Marketplace apps from history reads (PLATFORMS §8). */
export const SLACK_HISTORY_PAGE_LIMIT = 15;

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name, e.g. SLACK_BOT_TOKEN");

/**
 * Events API over HTTP: Slack POSTs each event to the gateway (`/webhooks/slack/<account>`),
 * signed with the app's signing secret (v0 HMAC over the raw body).
 */
export const slackEventsSchema = z.strictObject({
  mode: z.literal("events").default("events"),
  /** Name of the env var holding the app's signing secret. @defaultValue "SLACK_SIGNING_SECRET" */
  signingSecretEnv: envName.default("SLACK_SIGNING_SECRET"),
  /**
   * Largest accepted gap between `X-Slack-Request-Timestamp` and the clock, in ms (Slack's
   * replay window is 5 minutes). @defaultValue 300_000
   */
  maxClockSkewMs: z.number().int().positive().max(600_000).default(300_000),
  /**
   * How long the receiver may take before it answers Slack, in ms (Slack retries after 3 s).
   * @defaultValue 2_500
   */
  ackDeadlineMs: z.number().int().positive().max(3_000).default(2_500),
  /**
   * One Request URL for an app installed in several workspaces: the account of each other
   * workspace by team id (`{ "T0123": "acme" }`); its events go to that account. Events of a
   * workspace not listed and not this account's own are ignored. @defaultValue {}
   */
  teams: z
    .record(z.string().regex(/^[TE][A-Z0-9]+$/, "must be a Slack team id (T…)"), z.string().min(1))
    .default({}),
});

/** Socket Mode: the receiver opens a WebSocket with an app-level `xapp-` token; no public URL. */
export const slackSocketSchema = z.strictObject({
  mode: z.literal("socket"),
  /** Name of the env var holding the app-level token (`xapp-…`). @defaultValue "SLACK_APP_TOKEN" */
  appTokenEnv: envName.default("SLACK_APP_TOKEN"),
  /**
   * One Request URL for an app installed in several workspaces: the account of each other
   * workspace by team id (`{ "T0123": "acme" }`); its events go to that account. Events of a
   * workspace not listed and not this account's own are ignored. @defaultValue {}
   */
  teams: z
    .record(z.string().regex(/^[TE][A-Z0-9]+$/, "must be a Slack team id (T…)"), z.string().min(1))
    .default({}),
});

/** The Slack channel's account config. */
export const slackConfigSchema = z.strictObject({
  /** Name of the env var holding the bot token (`xoxb-…`). @defaultValue "SLACK_BOT_TOKEN" */
  tokenEnv: envName.default("SLACK_BOT_TOKEN"),
  /**
   * Web API root; a trailing `/` is added. Point it at the fake in tests.
   * @defaultValue "https://slack.com/api/"
   */
  slackApiUrl: z
    .url({ protocol: /^https?$/ })
    .transform((url) => (url.endsWith("/") ? url : `${url}/`))
    .default("https://slack.com/api/"),
  /**
   * How events arrive: `{ "mode": "events" }` (HTTP Events API, the default) or
   * `{ "mode": "socket" }` (Socket Mode). @defaultValue `{ mode: "events" }`
   */
  receive: z.discriminatedUnion("mode", [slackEventsSchema, slackSocketSchema]).prefault({
    mode: "events",
  }),
  /**
   * Longest `text` per message, in UTF-16 units; longer text is split (fences and marks closed
   * and re-opened). Slack truncates above 40,000 and suggests about 4,000 for readability: lower
   * it for shorter messages. @defaultValue 40_000
   */
  maxTextLength: z.number().int().min(2).max(SLACK_TEXT_LIMIT).default(SLACK_TEXT_LIMIT),
  /**
   * Replies to a top-level inbound message go into a thread under it (`thread_ts` = its `ts`).
   * A reply to a message inside a thread always stays in that thread. @defaultValue true
   */
  replyInThread: z.boolean().default(true),
  /** Thread replies are also posted to the channel (`reply_broadcast`). @defaultValue false */
  replyBroadcast: z.boolean().default(false),
  /**
   * Whether an edit (`message_changed`) that newly mentions the bot starts a turn. `"ignore"`:
   * edits never start turns (C23). `"mention-added"`: a human edit that adds a mention of the bot
   * does, once per message (its dedupe key is the original `ts`). @defaultValue "ignore"
   */
  editPolicy: z.enum(["ignore", "mention-added"]).default("ignore"),
  /**
   * What happens to a send whose outcome is unknown and that reconciliation could not settle
   * within its read budget: `"hold"` keeps it for an operator, `"at_least_once"` sends it again.
   * @defaultValue "hold"
   */
  unknownSendPolicy: z.enum(["hold", "at_least_once"]).default("hold"),
  /**
   * Inbound catch-up at receiver start (CASES C54; docs/channels/slack.md, "Catch-up"): what
   * people wrote while the gateway was down, read with `conversations.history` / `replies` from
   * each member conversation's last seen message. Reads share the workspace's history pace,
   * `reconcile.historyIntervalMs` (one a minute for apps outside the Marketplace since 2025).
   */
  catchUp: z
    .strictObject({
      /** Read what was missed at each start. @defaultValue true */
      enabled: z.boolean().default(true),
      /** Never read further back than this, in ms (a longer outage is logged). @defaultValue 86_400_000 (24 h) */
      maxAgeMs: z.number().int().positive().default(86_400_000),
      /**
       * Messages per history page: Slack allows 15 to apps outside the Marketplace (since
       * 2025), up to 999 (200 recommended) to Marketplace apps. @defaultValue 15
       */
      pageLimit: z.number().int().min(1).max(999).default(SLACK_HISTORY_PAGE_LIMIT),
      /** Pages read per conversation (and per thread) before giving up on the rest (logged). @defaultValue 20 */
      maxPagesPerConversation: z.number().int().min(1).max(1_000).default(20),
      /**
       * Threads per conversation (the most recently active ones with a reply seen) whose new
       * replies are read even when their root is older than the position; each costs one paced
       * read per catch-up. @defaultValue 3
       */
      maxThreads: z.number().int().min(0).max(100).default(3),
      /** Conversation types read (`users.conversations` `types`). @defaultValue all four */
      types: z
        .array(z.enum(["public_channel", "private_channel", "mpim", "im"]))
        .min(1)
        .default(["public_channel", "private_channel", "mpim", "im"]),
    })
    .prefault({}),
  /**
   * Reconciliation of unknown sends through `conversations.history` / `conversations.replies`
   * (see docs/channels/slack.md, "Exactly once").
   */
  reconcile: z
    .strictObject({
      /**
       * Least time between two history reads of one workspace, in ms. Slack allows apps that are
       * not in the Marketplace about one call a minute (since 2025). @defaultValue 60_000
       */
      historyIntervalMs: z.number().int().min(0).default(60_000),
      /** Pages (of at most 15 messages) read per reconciliation check. @defaultValue 3 */
      maxPagesPerCheck: z.number().int().min(1).max(50).default(3),
      /**
       * Longest a check waits for its turn in the workspace's read budget, in ms; beyond it the
       * check answers `unresolved` and core asks again later. @defaultValue 300_000
       */
      maxBudgetWaitMs: z.number().int().min(0).default(300_000),
      /**
       * Time after Slack accepted a post before history shows it, in ms (added to the request
       * timeout before the first lookup). @defaultValue 2_000
       */
      visibilityLagMs: z.number().int().min(0).default(2_000),
    })
    .prefault({}),
  /**
   * Live replies use Slack's native streaming (`chat.startStream`) where Slack allows it (a
   * reply in a thread, with its recipient); otherwise a preview edited with `chat.update`.
   * @defaultValue true
   */
  nativeStreaming: z.boolean().default(true),
  /**
   * A native stream older than this is rotated into a new message before Slack ends it (streams
   * live about 5 minutes server-side), in ms. @defaultValue 240_000
   */
  streamRotateAfterMs: z.number().int().positive().default(240_000),
  /**
   * Rate limits the scheduler enforces (https://docs.slack.dev/apis/web-api/rate-limits):
   * `chat.postMessage` about 1 per second per channel, `chat.update` Tier 3 (50+/min),
   * `chat.delete` Tier 3, `chat.appendStream` Tier 4 (100+/min), `chat.stopStream` Tier 2 (20+/min).
   * Keep `postsPerChannelPerSecond` at 1: Slack may answer a faster burst `ok: true` and still
   * never store or show some of it ("Posting messages", CASES C44), so herald would count as sent
   * what nobody sees.
   */
  rateLimits: z
    .strictObject({
      postsPerChannelPerSecond: z.number().int().positive().default(1),
      updatesPerMinute: z.number().int().positive().default(50),
      deletesPerMinute: z.number().int().positive().default(50),
      appendsPerMinute: z.number().int().positive().default(100),
      stopsPerMinute: z.number().int().positive().default(20),
    })
    .prefault({}),
  /** Least time between two live preview updates in one channel, in ms. @defaultValue 1_200 */
  previewIntervalMs: z.number().int().positive().default(1_200),
  /**
   * Remote files herald downloads to upload them (through the SDK's guarded fetch). An image
   * with a URL is not downloaded: Slack fetches it for an image block.
   */
  media: z
    .strictObject({
      /** Largest file, in bytes. @defaultValue 20_971_520 (20 MiB) */
      maxBytes: z.number().int().positive().default(20_971_520),
      /** Allow private and loopback addresses (a media server inside your network). @defaultValue false */
      allowPrivateNetworks: z.boolean().default(false),
      /** Host names that may resolve to private addresses. @defaultValue [] */
      allowedHosts: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  /** Per-request timeout of Web API calls, in ms; a timed-out post is `maybe_sent`. @defaultValue 10_000 */
  requestTimeoutMs: z.number().int().positive().default(10_000),
});

/** A validated Slack account config (defaults applied). */
export type SlackConfig = z.infer<typeof slackConfigSchema>;
/** A Slack account config as written by a user (defaults optional). */
export type SlackConfigInput = z.input<typeof slackConfigSchema>;
/** The Events API part of a validated config. */
export type SlackEventsConfig = z.infer<typeof slackEventsSchema>;

/**
 * The secrets a Slack account reads, each trimmed and shape-checked at start with the SDK's
 * `readSecret` (a malformed one stops the account with the setting named; C49).
 * Sources: https://docs.slack.dev/authentication/tokens (`xoxb-` bot, `xapp-` app-level tokens;
 * `xoxe.xoxb-` with token rotation), https://docs.slack.dev/authentication/verifying-requests-from-slack.
 */
export const slackSecrets = {
  /** The bot token (`tokenEnv`). */
  botToken: (config: Pick<SlackConfig, "tokenEnv">): SecretSpec => ({
    channel: "slack",
    name: config.tokenEnv,
    setting: "tokenEnv",
    what: "the Slack bot token",
    shape: /^(xoxe\.)?xoxb-[A-Za-z0-9-]+$/,
    expected: "a bot token (xoxb-…)",
    where: "OAuth & Permissions → Bot User OAuth Token",
  }),
  /** The signing secret of the Events API (`receive.signingSecretEnv`). */
  signingSecret: (receive: Pick<SlackEventsConfig, "signingSecretEnv">): SecretSpec => ({
    channel: "slack",
    name: receive.signingSecretEnv,
    setting: "receive.signingSecretEnv",
    what: "the Slack signing secret",
    shape: /^[A-Za-z0-9]{8,}$/,
    expected: "the app's signing secret (letters and digits, 32 of them)",
    where: "Basic Information → App Credentials → Signing Secret",
  }),
  /** The app-level token of Socket Mode (`receive.appTokenEnv`). */
  appToken: (receive: { appTokenEnv: string }): SecretSpec => ({
    channel: "slack",
    name: receive.appTokenEnv,
    setting: "receive.appTokenEnv",
    what: "the Slack app-level token",
    shape: /^xapp-[A-Za-z0-9-]+$/,
    expected: "an app-level token (xapp-…) with connections:write",
    where: "Basic Information → App-Level Tokens",
  }),
};
