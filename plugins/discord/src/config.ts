/**
 * Account config of the Discord channel, validated with zod (errors name the field path). The
 * bot token is never part of it: `tokenEnv` names the environment variable that holds it.
 *
 * Units: every duration is in milliseconds (`…Ms`). Discord's own wire units (seconds in
 * `retry_after` and `X-RateLimit-Reset-After`) never appear here.
 *
 * @module
 */
import { type SecretSpec, z } from "@herald/plugin-sdk/channel-message";

/** Discord's limit for message `content`, in characters (UTF-16 units). */
export const DISCORD_TEXT_LIMIT = 2000;

/**
 * How long Discord enforces a `nonce` ("the past few minutes", not documented exactly), in ms:
 * declared conservatively, a little under the observed window, so a replay later than this is
 * reconciled or held instead of trusted (PLATFORMS.md §8).
 */
export const DISCORD_NONCE_WINDOW_MS = 120_000;

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name, e.g. DISCORD_TOKEN");

const snowflake = z.string().regex(/^\d{1,20}$/, "must be a Discord id (a snowflake, digits)");

/** Which mentions in text may ping; the rest are shown as inert text and blocked by `allowed_mentions`. */
export const discordMentionsSchema = z.strictObject({
  /** Users (`<@id>`). @defaultValue true */
  users: z.boolean().default(true),
  /** Roles (`<@&id>`): `true` for every role, or the role ids allowed. @defaultValue false */
  roles: z.union([z.boolean(), z.array(snowflake)]).default(false),
  /** `@everyone` and `@here`. @defaultValue false */
  everyone: z.boolean().default(false),
  /** Whether a reply pings the author of the message it answers. @defaultValue false */
  repliedUser: z.boolean().default(false),
});

/** Discord's rate limits as declared to herald's scheduler (Discord's defaults). */
export const discordRateLimitsSchema = z.strictObject({
  /** Requests per second per bot (Discord's global limit). @defaultValue 50 */
  globalPerSecond: z.number().int().positive().default(50),
  /** Message creates + edits + deletes per channel per `perChannelIntervalMs`. @defaultValue 5 */
  perChannel: z.number().int().positive().default(5),
  /** Window of `perChannel`, in ms. @defaultValue 5_000 */
  perChannelIntervalMs: z.number().int().positive().default(5_000),
});

/** The interactions endpoint (HTTP): Discord POSTs slash commands and components to it. */
export const discordInteractionsSchema = z.strictObject({
  /**
   * The application's public key (64 hex digits, Developer Portal → General Information), used
   * to verify `X-Signature-Ed25519` over `X-Signature-Timestamp` + the raw body.
   */
  publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex digits (32 bytes)"),
});

/** Remote attachments, fetched by herald through the SDK's guarded fetch and uploaded. */
export const discordMediaSchema = z.strictObject({
  /** Largest file fetched, in bytes (Discord's default upload limit is 10 MiB). @defaultValue 10_485_760 */
  maxBytes: z.number().int().positive().default(10_485_760),
  /** Fetch from private and loopback addresses too. @defaultValue false */
  allowPrivateNetworks: z.boolean().default(false),
  /** Host names that may resolve to private addresses (an internal media host). @defaultValue [] */
  allowedHosts: z.array(z.string().min(1)).default([]),
});

/** The Discord channel's account config. */
export const discordConfigSchema = z.strictObject({
  /** Name of the env var holding the bot token. @defaultValue "DISCORD_TOKEN" */
  tokenEnv: envName.default("DISCORD_TOKEN"),
  /**
   * REST API base, without the version (`/v10` is added). Point it at the fake in tests.
   * @defaultValue "https://discord.com/api"
   */
  apiBase: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .default("https://discord.com/api"),
  /**
   * Gateway URL to dial instead of the `url` of `GET /gateway/bot` (a proxy, a fake). Absent:
   * the one Discord names.
   */
  gatewayUrl: z.url({ protocol: /^wss?$/ }).optional(),
  /** The bot's application id (its user id for most bots); read from READY when absent. */
  applicationId: snowflake.optional(),
  /**
   * Webhooks this bot owns: their messages (author id = webhook id) are our own echoes.
   * @defaultValue []
   */
  webhookIds: z.array(snowflake).default([]),
  /** Longest `content` per message, in UTF-16 units; only lower it (tests). @defaultValue 2000 */
  maxTextLength: z.number().int().min(2).max(DISCORD_TEXT_LIMIT).default(DISCORD_TEXT_LIMIT),
  /** Request timeout of one REST call, in ms. @defaultValue 15_000 */
  requestTimeoutMs: z.number().int().positive().default(15_000),
  /**
   * What happens to a send whose outcome is unknown *after* the nonce window (or on a path
   * Discord's nonce does not cover): `hold` waits for an operator, `at_least_once` resends.
   * Within the window a replay is always deduplicated by the nonce. @defaultValue "hold"
   */
  unknownSendPolicy: z.enum(["hold", "at_least_once"]).default("hold"),
  /** Remote attachments. @defaultValue public hosts only, 10 MiB */
  media: discordMediaSchema.prefault({}),
  /** Which mentions may ping. @defaultValue users only */
  mentions: discordMentionsSchema.prefault({}),
  /** Declared rate limits. @defaultValue Discord's */
  rateLimits: discordRateLimitsSchema.prefault({}),
  /**
   * How a live reply ends: `edit` turns the last preview into the final (no notification);
   * `fresh` sends the final as a new message (shown as unread) and deletes the previews once
   * it is accepted. @defaultValue "edit"
   */
  finalDelivery: z.enum(["edit", "fresh"]).default("edit"),
  /** Typing indicator refresh, in ms (Discord shows it ~10 s). @defaultValue 8_000 */
  typingRefreshMs: z.number().int().positive().default(8_000),
  /** The interactions endpoint; absent: interactions are not received. */
  interactions: discordInteractionsSchema.optional(),
});

/** A validated Discord config. */
export type DiscordConfig = z.output<typeof discordConfigSchema>;
/** A Discord config as written (defaults optional). */
export type DiscordConfigInput = z.input<typeof discordConfigSchema>;

/**
 * The secrets a Discord account reads, trimmed and shape-checked at start with the SDK's
 * `readSecret` (a malformed one stops the account with the setting named; C49).
 * Source: https://discord.com/developers/docs/reference#authentication (a bot token is three
 * base64url parts joined by dots, sent as `Authorization: Bot <token>`).
 */
export const discordSecrets = {
  /** The bot token (`tokenEnv`). */
  botToken: (config: Pick<DiscordConfig, "tokenEnv">): SecretSpec => ({
    channel: "discord",
    name: config.tokenEnv,
    setting: "tokenEnv",
    what: "the Discord bot token",
    shape: /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
    expected: 'a bot token (three dot-separated parts, without a "Bot " prefix)',
    where: "Developer Portal → your application → Bot → Reset Token",
  }),
};
