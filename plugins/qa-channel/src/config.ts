/**
 * Account config of the QA channel, validated with zod (errors name the field path).
 *
 * @module
 */
import { type SecretSpec, z } from "@herald/plugin-sdk/channel-message";

/**
 * How the adapter makes a send whose outcome is unknown (reset, timeout, crash) safe:
 * - `idempotent` (default): sends a client key per unit; the platform returns the first message
 *   for a known key, so replays are exactly-once. Needs the platform's idempotency on (default).
 * - `reconcile`: still sends the key, but instead of relying on the platform to deduplicate it
 *   looks the key up (`GET …/messages?client_key=`) before replaying.
 * - `at_least_once`: no key; replays blindly (a duplicate may become visible).
 * - `hold`: no key; unknown sends wait for an operator.
 */
export const qaDeliveryModeSchema = z.enum(["idempotent", "reconcile", "at_least_once", "hold"]);
export type QaDeliveryMode = z.infer<typeof qaDeliveryModeSchema>;

/** The QA channel's account config. */
export const qaConfigSchema = z.strictObject({
  /** Base URL of the QA platform, e.g. `http://127.0.0.1:4610`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /**
   * Name of the env var (or a file path) holding the bot token `<bot id>:<secret>`. The token
   * itself never goes in the config file.
   * @defaultValue "HERALD_QA_TOKEN"
   */
  tokenSecret: z.string().min(1).default("HERALD_QA_TOKEN"),
  /** Longest text per message, in UTF-16 units; longer text is split. @defaultValue 4000 (the platform's limit) */
  maxLength: z.number().int().min(16).max(100_000).default(4_000),
  /** See {@link qaDeliveryModeSchema}. @defaultValue "idempotent" */
  delivery: qaDeliveryModeSchema.default("idempotent"),
  /** Per-request timeout in ms; a timed-out send is `maybe_sent`. @defaultValue 10_000 */
  requestTimeoutMs: z.number().int().positive().default(10_000),
  /**
   * Live preview edits allowed per chat (herald throttles previews to it).
   * @defaultValue `{ limit: 5, intervalMs: 1000 }`
   */
  editRate: z
    .strictObject({ limit: z.number().int().positive(), intervalMs: z.number().int().positive() })
    .default({ limit: 5, intervalMs: 1_000 }),
  /**
   * How often the typing indicator is repeated while shown, in ms (the platform lets it lapse
   * after 5 s). @defaultValue 4_000
   */
  typingRefreshMs: z.number().int().positive().default(4_000),
  /**
   * Native streaming (`live.stream`): live mode `native` / `auto` streams replies through the
   * platform's stream API (`POST …/streams`, append, stop) instead of editing previews.
   * @defaultValue false
   */
  nativeStream: z.boolean().default(false),
  /** Wait before reconnecting a dropped event stream, in ms. @defaultValue 1_000 */
  reconnectDelayMs: z.number().int().nonnegative().default(1_000),
});

/** A validated QA account config (defaults applied). */
export type QaConfig = z.infer<typeof qaConfigSchema>;
/** A QA account config as written by a user (defaults optional). */
export type QaConfigInput = z.input<typeof qaConfigSchema>;

/**
 * The secret a QA account reads (`tokenSecret`), trimmed and shape-checked at start with the
 * SDK's `readSecret` (C49): the platform's bot token is `<bot id>:<secret>`.
 */
export const qaSecrets = {
  /** The bot token (`tokenSecret`). */
  botToken: (config: Pick<QaConfig, "tokenSecret">): SecretSpec => ({
    channel: "qa",
    name: config.tokenSecret,
    setting: "tokenSecret",
    what: "the QA bot token",
    shape: /^[^:\s]+:\S+$/,
    expected: 'a bot token "<bot id>:<secret>"',
  }),
};
