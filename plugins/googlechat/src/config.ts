/**
 * Account config of the Google Chat channel, validated with zod (errors name the field path).
 * Credentials are never part of it: `credentials` names the environment variable (or file) that
 * holds the service-account key or the preset OAuth access token.
 *
 * Units: every duration is in milliseconds (`…Ms`).
 *
 * @module
 */
import { type SecretSpec, z } from "@herald/plugin-sdk/channel-message";

/** Google Chat's limit for a message's `text`, in characters (spaces.messages.create). */
export const GOOGLE_CHAT_TEXT_LIMIT = 4096;

/** The Chat API root of production. */
export const GOOGLE_CHAT_ROOT_URL = "https://chat.googleapis.com/";

/** Who signs Chat's bearer tokens (both audience modes). */
export const CHAT_ISSUER_EMAIL = "chat@system.gserviceaccount.com";

/** Google's certificates of ID tokens (audience = endpoint URL). */
export const GOOGLE_ID_TOKEN_CERTS_URL = "https://www.googleapis.com/oauth2/v1/certs";

/** The certificates of `chat@system.gserviceaccount.com` (audience = project number). */
export const CHAT_JWT_CERTS_URL = `https://www.googleapis.com/service_accounts/v1/metadata/x509/${CHAT_ISSUER_EMAIL}`;

/** The OAuth scope of a Chat app acting as itself. */
export const CHAT_BOT_SCOPE = "https://www.googleapis.com/auth/chat.bot";

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name, e.g. GOOGLE_CHAT_KEY");

/**
 * A service account key (the JSON file Google Cloud gives you): the app authenticates as
 * itself with the `chat.bot` scope. Name either an env var holding the JSON, or a file.
 */
export const serviceAccountSchema = z
  .strictObject({
    type: z.literal("service_account"),
    /** Env var holding the key JSON. */
    keyJsonEnv: envName.optional(),
    /** Path of the key JSON file. */
    keyFile: z.string().min(1).optional(),
  })
  .refine((c) => (c.keyJsonEnv === undefined) !== (c.keyFile === undefined), {
    message: "set exactly one of keyJsonEnv or keyFile",
  });

/**
 * A preset OAuth access token (from your own token broker, or a fake in tests): sent as is, never
 * refreshed. The token expires after about an hour on the real platform.
 */
export const accessTokenSchema = z.strictObject({
  type: z.literal("access_token"),
  /** Env var holding the access token (`ya29.…`). @defaultValue "GOOGLE_CHAT_ACCESS_TOKEN" */
  tokenEnv: envName.default("GOOGLE_CHAT_ACCESS_TOKEN"),
});

/**
 * The app's "Authentication audience" setting in the Chat API configuration page: which bearer
 * token Chat puts on every event it posts to the endpoint (PLATFORMS.md §7).
 */
export const audienceSchema = z.discriminatedUnion("type", [
  z.strictObject({
    /** An OIDC ID token signed by Google whose `aud` is the endpoint's URL. */
    type: z.literal("endpoint_url"),
    /** The HTTP endpoint URL exactly as configured in the Chat app (the token's `aud`). */
    url: z.url({ protocol: /^https?$/ }),
    /**
     * Service accounts allowed as the token's `email` (verified). Chat's own, and for
     * Workspace add-ons the per-project `service-<N>@gcp-sa-gsuiteaddons.iam.gserviceaccount.com`.
     * @defaultValue ["chat@system.gserviceaccount.com"]
     */
    serviceAccountEmails: z.array(z.email()).min(1).default([CHAT_ISSUER_EMAIL]),
  }),
  z.strictObject({
    /** A JWT self-signed by `chat@system.gserviceaccount.com` whose `aud` is the project number. */
    type: z.literal("project_number"),
    /** The Google Cloud project number (digits). */
    projectNumber: z.string().regex(/^\d+$/, "must be the project number (digits only)"),
  }),
]);

/** How events arrive: Chat POSTs them to the gateway (`/webhooks/googlechat/<account>`). */
export const receiveSchema = z.strictObject({
  audience: audienceSchema,
  /**
   * Where the signing certificates are fetched (tests point them at a fake).
   * @defaultValue Google's URLs
   */
  certsUrls: z
    .strictObject({
      idToken: z.url({ protocol: /^https?$/ }).default(GOOGLE_ID_TOKEN_CERTS_URL),
      chat: z.url({ protocol: /^https?$/ }).default(CHAT_JWT_CERTS_URL),
    })
    .prefault({}),
});

/** The Google Chat channel's account config. */
export const googleChatConfigSchema = z.strictObject({
  /** How the app authenticates to the Chat API. */
  credentials: z.union([serviceAccountSchema, accessTokenSchema]),
  /**
   * The Chat API root, with a trailing slash (one is added). Tests point it at the fake.
   * @defaultValue "https://chat.googleapis.com/"
   */
  rootUrl: z
    .url({ protocol: /^https?$/ })
    .transform((url) => (url.endsWith("/") ? url : `${url}/`))
    .default(GOOGLE_CHAT_ROOT_URL),
  /**
   * The app's own user name (`users/<id>`, as its messages carry it in `sender.name`), so its
   * own messages are recognised even from another process; `users/app` always is.
   */
  appUser: z
    .string()
    .regex(/^users\/[^/]+$/, "must be a user name users/<id>")
    .optional(),
  /** The HTTP endpoint receiver; absent: send-only. */
  receive: receiveSchema.optional(),
  /**
   * Inbound catch-up at receiver start (CASES C54; docs/channels/googlechat.md, "Catch-up"):
   * `spaces.messages.list` with `createTime > "<last seen>"` in every space the app is in
   * (`spaces.list`). With app authentication the list needs the
   * `chat.app.messages.readonly` scope (administrator approval); without it catch-up logs the
   * refusal and live events go on.
   */
  catchUp: z
    .strictObject({
      /** Read what was missed at each start (needs `receive`). @defaultValue true */
      enabled: z.boolean().default(true),
      /** Never read further back than this, in ms. @defaultValue 86_400_000 (24 h) */
      maxAgeMs: z.number().int().positive().default(86_400_000),
      /** Messages per page (the API allows up to 1000). @defaultValue 100 */
      pageSize: z.number().int().min(1).max(1_000).default(100),
      /** Pages read per space before giving up on the rest (logged). @defaultValue 20 */
      maxPagesPerSpace: z.number().int().min(1).max(1_000).default(20),
      /**
       * Least time between two list calls, in ms (Chat's read quota is per project, about
       * 3000 a minute; per user 600 a minute with user authentication). @defaultValue 100
       */
      readIntervalMs: z.number().int().min(0).default(100),
      /**
       * Which space messages are handed over: `"mentions"` — only those that mention an app or
       * run a slash command, as Chat's HTTP events would have brought them — or `"all"`.
       * Direct messages are always all. @defaultValue "mentions"
       */
      spaces: z.enum(["mentions", "all"]).default("mentions"),
    })
    .prefault({}),
  /** Longest `text` per message, in characters; longer text is split. @defaultValue 4096 */
  maxTextLength: z
    .number()
    .int()
    .min(16)
    .max(GOOGLE_CHAT_TEXT_LIMIT)
    .default(GOOGLE_CHAT_TEXT_LIMIT),
  /**
   * Render `ChannelMessage.card` as cardsV2 (with its text as `fallbackText`). `false` appends
   * the card's fallback markdown to the text instead (cards need app authentication).
   * @defaultValue true
   */
  cards: z.boolean().default(true),
  /**
   * Rate limits the scheduler enforces (developers.google.com/workspace/chat/limits): message
   * writes (create, update, delete) per space per second and per minute — shared by every app
   * in the space — and per project per minute.
   * @defaultValue `{ perSpacePerSecond: 1, perSpacePerMinute: 60, perProjectPerMinute: 3000 }`
   */
  rateLimits: z
    .strictObject({
      perSpacePerSecond: z.number().int().positive().default(1),
      perSpacePerMinute: z.number().int().positive().default(60),
      perProjectPerMinute: z.number().int().positive().default(3_000),
    })
    .prefault({}),
  /** Least time between two live preview edits in one space, in ms. @defaultValue 1_000 */
  previewIntervalMs: z.number().int().positive().default(1_000),
  /** Per-request timeout, in ms; a timed-out create is `maybe_sent`. @defaultValue 30_000 */
  requestTimeoutMs: z.number().int().positive().default(30_000),
});

/** A validated Google Chat account config (defaults applied). */
export type GoogleChatConfig = z.infer<typeof googleChatConfigSchema>;
/** A Google Chat account config as written by a user (defaults optional). */
export type GoogleChatConfigInput = z.input<typeof googleChatConfigSchema>;
/** The receive part of a validated config. */
export type GoogleChatReceiveConfig = z.infer<typeof receiveSchema>;

/**
 * The secrets a Google Chat account reads, trimmed and shape-checked at start with the SDK's
 * `readSecret` / `checkSecret` (a malformed one stops the account with the setting named; C49).
 * A service account key is JSON (checked further by `credentialsOf`).
 */
export const googleChatSecrets = {
  /** An OAuth access token (`credentials.tokenEnv`). */
  accessToken: (tokenEnv: string): SecretSpec => ({
    channel: "googlechat",
    name: tokenEnv,
    setting: "credentials.tokenEnv",
    what: "the Google Chat access token",
    expected: "an OAuth access token (one word, e.g. ya29.…)",
  }),
  /** A service account key, from an env var (`credentials.keyJsonEnv`) or a file (`credentials.keyFile`). */
  serviceAccountKey: (source: { keyJsonEnv: string } | { keyFile: string }): SecretSpec => ({
    channel: "googlechat",
    name: "keyJsonEnv" in source ? source.keyJsonEnv : `file ${source.keyFile}`,
    setting: "keyJsonEnv" in source ? "credentials.keyJsonEnv" : "credentials.keyFile",
    what: "the service account key",
    // JSON: whitespace inside is fine; only the ends are trimmed.
    multiline: true,
    shape: /^\{[\s\S]*\}$/,
    expected: 'a service account key file\'s JSON ({ "client_email": …, "private_key": … })',
    where: "Google Cloud console → IAM → Service accounts → Keys",
  }),
};
