/**
 * Account config of the Telegram channel, validated with zod (errors name the field path). The
 * bot token is never part of it: `tokenEnv` names the environment variable that holds it.
 *
 * Units: every duration is in milliseconds (`…Ms`), except `pollTimeoutSeconds`, which is the
 * Bot API's own long-polling `timeout` (seconds on the wire).
 *
 * @module
 */
import { type SecretSpec, z } from "@herald/plugin-sdk/channel-message";

/** Telegram's limit for `text`, in UTF-16 units after entity parsing (Bot API `sendMessage`). */
export const TELEGRAM_TEXT_LIMIT = 4096;
/** Telegram's limit for a media `caption`, in UTF-16 units after entity parsing. */
export const TELEGRAM_CAPTION_LIMIT = 1024;

const envName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "must be an environment variable name, e.g. TELEGRAM_BOT_TOKEN",
  );

/**
 * Long polling (`getUpdates`): the default. Nothing to expose to the internet; herald controls
 * the offset itself, so an update is only confirmed once its work is recorded or done.
 */
export const telegramPollingSchema = z.strictObject({
  /** `"polling"`, the default: a `receive` block without `mode` is polling. */
  mode: z.literal("polling").default("polling"),
  /**
   * Long-polling wait per `getUpdates` call, in **seconds** (the Bot API's `timeout`).
   * @defaultValue 25
   */
  pollTimeoutSeconds: z.number().int().min(0).max(50).default(25),
  /** Updates per `getUpdates` call (Bot API `limit`, 1–100). @defaultValue 100 */
  limit: z.number().int().min(1).max(100).default(100),
  /**
   * While an update's work is unfinished its offset cannot be confirmed, so `getUpdates`
   * returns it again at once instead of long-polling: the poller then waits this long (or until
   * an update finishes) before it asks again, in ms. @defaultValue 1_000
   */
  pinnedPollIntervalMs: z.number().int().positive().default(1_000),
  /**
   * Least time from the start of a `getUpdates` that came back empty to the start of the next,
   * in ms. Telegram holds a long poll until an update arrives or `pollTimeoutSeconds` pass (and
   * raises the timeout of a repeated short poll to 3 s itself), so against it this never
   * waits; a proxy, a local Bot API emulator or a misconfigured server that answers `[]` at once
   * would otherwise be asked again at once, in a loop (CASES C42). @defaultValue 1_000
   */
  emptyPollGapMs: z.number().int().min(0).default(1_000),
  /**
   * Wait after a failed `getUpdates` (network, 5xx, 409), doubled after each failure in a row
   * up to 30 s, in ms; a 429's `retry_after` is waited when it is longer. @defaultValue 1_000
   */
  retryDelayMs: z.number().int().positive().default(1_000),
  /**
   * Call `deleteWebhook` before polling (Telegram answers 409 to `getUpdates` while a webhook
   * is set). Pending updates are kept. @defaultValue true
   */
  deleteWebhook: z.boolean().default(true),
});

/**
 * Webhook: Telegram POSTs each update to the gateway (`/webhooks/telegram/<account>`), with the
 * secret token in `X-Telegram-Bot-Api-Secret-Token`.
 */
export const telegramWebhookSchema = z.strictObject({
  mode: z.literal("webhook"),
  /**
   * Name of the env var holding the webhook secret token (1–256 characters `A-Z a-z 0-9 _ -`),
   * passed to `setWebhook` as `secret_token` and checked on every request.
   */
  secretTokenEnv: envName,
  /**
   * Public HTTPS URL of this account's webhook. When set, the receiver calls `setWebhook` with
   * it at start; otherwise set the webhook yourself (see docs/channels/telegram.md).
   */
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
});

/** Which update types Telegram delivers (Bot API `allowed_updates`). */
export const TELEGRAM_ALLOWED_UPDATES = [
  "message",
  "edited_message",
  "channel_post",
  "edited_channel_post",
  "callback_query",
  // Reactions ([H23]): delivered only when listed; in groups the bot must be an administrator.
  "message_reaction",
] as const;

/** The Telegram channel's account config. */
export const telegramConfigSchema = z.strictObject({
  /**
   * Name of the env var holding the bot token (`123456:ABC…` from @BotFather).
   * @defaultValue "TELEGRAM_BOT_TOKEN"
   */
  tokenEnv: envName.default("TELEGRAM_BOT_TOKEN"),
  /**
   * Bot API root, without a trailing slash (one is removed). Point it at a local Bot API
   * server or, in tests, at the fake. @defaultValue "https://api.telegram.org"
   */
  apiRoot: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .default("https://api.telegram.org"),
  /**
   * The bot's username without `@`, used to recognise `@mentions`. Read once with `getMe`
   * when absent.
   */
  botUsername: z.string().min(1).optional(),
  /**
   * How updates arrive. A block without `mode` is polling (`{ "pollTimeoutSeconds": 10 }`);
   * a webhook needs `"mode": "webhook"`. @defaultValue `{ mode: "polling" }`
   */
  receive: z
    .discriminatedUnion("mode", [telegramPollingSchema, telegramWebhookSchema])
    .prefault({ mode: "polling" }),
  /**
   * Longest text per message, in UTF-16 units; longer text is split. Only lower it (tests).
   * @defaultValue 4096
   */
  maxTextLength: z.number().int().min(2).max(TELEGRAM_TEXT_LIMIT).default(TELEGRAM_TEXT_LIMIT),
  /** Longest media caption, in UTF-16 units. @defaultValue 1024 */
  maxCaptionLength: z
    .number()
    .int()
    .min(2)
    .max(TELEGRAM_CAPTION_LIMIT)
    .default(TELEGRAM_CAPTION_LIMIT),
  /**
   * A caption longer than `maxCaptionLength`: `"separate"` sends the media without a caption
   * and the whole text after it; `"split"` captions the media with the first part and sends
   * the rest after it. @defaultValue "separate"
   */
  captionOverflow: z.enum(["separate", "split"]).default("separate"),
  /**
   * What happens to a send whose outcome is unknown (connection reset or timeout after the
   * request left, a crash between the platform's answer and the receipt): `"hold"` keeps it
   * for an operator (`herald queue show` / `retry` / `cancel`), `"at_least_once"` sends it
   * again (the chat may show it twice). Telegram has no idempotency key, so nothing else can
   * make a replay safe. @defaultValue "hold"
   */
  unknownSendPolicy: z.enum(["hold", "at_least_once"]).default("hold"),
  /**
   * Reconciliation of unknown sends by probing (see docs/channels/telegram.md, "Delivery
   * guarantee"). `"probe"` is only sound while this process is the only sender of this bot:
   * leave it `"off"` when several gateway processes share one bot token. @defaultValue "off"
   */
  reconcile: z.enum(["off", "probe"]).default("off"),
  /** Message ids probed per reconciliation check (`reconcile: "probe"`). @defaultValue 3 */
  maxProbes: z.number().int().min(1).max(20).default(3),
  /**
   * Rate limits the scheduler enforces (Telegram FAQ "My bot is hitting limits"): messages per
   * second per bot, per second per chat, per minute per group.
   * @defaultValue `{ perBotPerSecond: 30, perChatPerSecond: 1, perGroupPerMinute: 20 }`
   */
  rateLimits: z
    .strictObject({
      perBotPerSecond: z.number().int().positive().default(30),
      perChatPerSecond: z.number().int().positive().default(1),
      perGroupPerMinute: z.number().int().positive().default(20),
    })
    .default({ perBotPerSecond: 30, perChatPerSecond: 1, perGroupPerMinute: 20 }),
  /** Least time between two live preview updates in one chat, in ms. @defaultValue 1_000 */
  previewIntervalMs: z.number().int().positive().default(1_000),
  /**
   * A preview older than this gets a fresh final message (so the chat notifies the user) and
   * is deleted afterwards, in ms. @defaultValue 60_000
   */
  previewStaleAfterMs: z.number().int().positive().default(60_000),
  /**
   * How often `sendChatAction("typing")` is repeated while typing shows, in ms (Telegram
   * lets it lapse after 5 s). @defaultValue 4_000
   */
  typingRefreshMs: z.number().int().positive().default(4_000),
  /** Per-request timeout for sends and edits, in ms; a timed-out send is `maybe_sent`. @defaultValue 30_000 */
  requestTimeoutMs: z.number().int().positive().default(30_000),
});

/** A validated Telegram account config (defaults applied). */
export type TelegramConfig = z.infer<typeof telegramConfigSchema>;
/** A Telegram account config as written by a user (defaults optional). */
export type TelegramConfigInput = z.input<typeof telegramConfigSchema>;
/** The polling part of a validated config. */
export type TelegramPollingConfig = z.infer<typeof telegramPollingSchema>;
/** The webhook part of a validated config. */
export type TelegramWebhookConfig = z.infer<typeof telegramWebhookSchema>;

/**
 * The secrets a Telegram account reads, each trimmed and shape-checked at start with the SDK's
 * `readSecret` (a malformed one stops the account with the setting named; C49).
 * Sources: https://core.telegram.org/bots/api#authorizing-your-bot (`123456:ABC-DEF…`),
 * https://core.telegram.org/bots/api#setwebhook (`secret_token`: 1–256 of `A-Za-z0-9_-`).
 */
export const telegramSecrets = {
  /** The bot token (`tokenEnv`). */
  botToken: (config: Pick<TelegramConfig, "tokenEnv">): SecretSpec => ({
    channel: "telegram",
    name: config.tokenEnv,
    setting: "tokenEnv",
    what: "the Telegram bot token",
    shape: /^\d+:[A-Za-z0-9_-]+$/,
    expected: "a bot token (<bot id>:<secret>, e.g. 123456:ABC-DEF1234ghIkl)",
    where: "@BotFather → /token",
  }),
  /** The webhook's secret token (`receive.secretTokenEnv`). */
  webhookSecret: (receive: Pick<TelegramWebhookConfig, "secretTokenEnv">): SecretSpec => ({
    channel: "telegram",
    name: receive.secretTokenEnv,
    setting: "receive.secretTokenEnv",
    what: "the Telegram webhook secret token",
    shape: /^[A-Za-z0-9_-]{1,256}$/,
    expected: "1–256 characters of A-Z a-z 0-9 _ -",
    where: "any value you choose, e.g. openssl rand -hex 32",
  }),
};
