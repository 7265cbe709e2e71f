/**
 * Account config of the Matrix channel, validated with zod (errors name the field path). The
 * access token is never part of it: `accessTokenEnv` names the environment variable holding it.
 *
 * Units: every duration is in milliseconds (`…Ms`); sizes of events are UTF-8 bytes
 * (`…Bytes`); text lengths are UTF-16 units (`maxTextLength`).
 *
 * @module
 */
import { type SecretSpec, z } from "@herald/plugin-sdk/channel-message";

/**
 * The largest event a homeserver accepts, in bytes of its federation JSON (spec "Size limits",
 * 65,536). Bigger events are refused with `M_TOO_LARGE`.
 */
export const MATRIX_EVENT_LIMIT_BYTES = 65_536;

/**
 * The longest plain `body` per event this channel sends by default, in UTF-16 units. Matrix has
 * no text limit of its own — only the event size — so this keeps a long reply in readable parts;
 * every part also stays under `maxContentBytes`.
 */
export const MATRIX_DEFAULT_TEXT_LENGTH = 16_000;

const envName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "must be an environment variable name, e.g. MATRIX_ACCESS_TOKEN",
  );

/** A Matrix user id, `@localpart:server` (spec "User Identifiers"). */
const userId = z.string().regex(/^@[^:\s]+:\S+$/, "must be a Matrix user id like @bot:example.org");

/** The `/sync` receiver. */
export const matrixSyncSchema = z.strictObject({
  /**
   * Long-poll wait per `/sync`, in ms (the spec's `timeout`). @defaultValue 30_000
   */
  pollTimeoutMs: z.number().int().min(0).max(120_000).default(30_000),
  /** Timeline events per room per `/sync` (filter `room.timeline.limit`). @defaultValue 50 */
  timelineLimit: z.number().int().min(1).max(1_000).default(50),
  /**
   * Events per `/messages` page when a `limited: true` timeline is back-filled, and the most
   * pages followed per gap (each gap is logged with what was fetched). @defaultValue 100 / 20
   */
  backfillPageSize: z.number().int().min(1).max(1_000).default(100),
  backfillMaxPages: z.number().int().min(1).max(1_000).default(20),
  /** Wait after a failed `/sync`, doubled up to 30 s, in ms. @defaultValue 1_000 */
  retryDelayMs: z.number().int().positive().default(1_000),
  /**
   * Room invites: `"join"` joins every room the bot is invited to, `"ignore"` leaves them
   * pending (join rooms yourself), `"allowlist"` joins only invites from `inviters`.
   * @defaultValue "ignore"
   */
  invites: z.enum(["join", "ignore", "allowlist"]).default("ignore"),
  /** Whose invites are joined with `invites: "allowlist"` (user ids, compared exactly). */
  inviters: z.array(userId).default([]),
});

/**
 * End-to-end encryption of one account (docs/channels/matrix.md, "Encryption"). Absent: the
 * account refuses encrypted rooms (`HERALD_MATRIX_ENCRYPTED`).
 */
export const matrixEncryptionSchema = z.strictObject({
  /**
   * The directory of this account's crypto store (device keys, Olm and Megolm sessions): keep it
   * beside herald's state and back it up with it. One directory per account and device; never
   * shared by two running processes.
   */
  storePath: z.string().min(1),
  /**
   * An environment variable holding a passphrase that encrypts the store's values at rest
   * (matrix-sdk-crypto's store cipher). Absent: the values are stored plain (file mode 0600).
   */
  storePassphraseEnv: envName.optional(),
  /**
   * How long an `m.room.encrypted` event whose room key has not arrived waits (retried whenever a
   * `/sync` brings keys) before it is dead-lettered (`HERALD_MATRIX_UNDECRYPTABLE`), in ms.
   */
  decryptWaitMs: z.number().int().min(0).max(3_600_000).default(60_000),
});

/**
 * The homeserver software, for what the spec leaves open: how long a transaction id is
 * remembered (the spec promises idempotency for a retried `PUT …/{txnId}` but states no
 * retention). Checked in each server's source (docs/channels/matrix.md, "What the real servers
 * do"):
 * - `synapse`: kept in its database (`event_txn_id_device_id`) and deleted after 24 h, across
 *   restarts → 23 h trusted;
 * - `conduit` (and conduwuit): kept in its database (`userdevicetxnid_response`) with no expiry →
 *   23 h trusted, like Synapse (nothing is gained by trusting longer);
 * - `dendrite`: two in-memory maps cycled every 30 min (kept 30–60 min) and lost on restart → 0
 *   (never trusted: a restart of the homeserver can forget any txnId at once);
 * - `other` (default): the spec's promise only → 0.
 *
 * A txnId that is not trusted is never replayed blind: herald first looks for its own event by
 * `unsigned.transaction_id` and commits it if found (and it always looks before a replay).
 */
export const HOMESERVER_KINDS = ["synapse", "dendrite", "conduit", "other"] as const;

/** A homeserver software herald knows the transaction-id retention of. */
export type HomeserverKind = (typeof HOMESERVER_KINDS)[number];

/** How long herald trusts a txnId per homeserver kind, in ms ({@link HOMESERVER_KINDS}). */
export const TXN_RETENTION_MS_BY_KIND: Readonly<Record<HomeserverKind, number>> = {
  synapse: 82_800_000,
  conduit: 82_800_000,
  dendrite: 0,
  other: 0,
};

/** The homeserver's software and what herald trusts of it. */
export const matrixHomeserverSchema = z.strictObject({
  /**
   * Which server software runs the homeserver (see {@link HOMESERVER_KINDS}).
   * @defaultValue "other" (no txnId retention trusted)
   */
  kind: z.enum(HOMESERVER_KINDS).default("other"),
  /**
   * How long a replay with the same txnId is trusted to return the first event, in ms, counted
   * from the unit's first dispatch. Set it only when you know your server's retention better
   * than the kind's default ({@link TXN_RETENTION_MS_BY_KIND}); declare a little under it.
   * `0`: never trusted (herald reconciles by `unsigned.transaction_id` first).
   * @defaultValue the kind's retention
   */
  txnRetentionMs: z.number().int().min(0).max(604_800_000).optional(),
  /**
   * Pages of `GET /rooms/{roomId}/messages` (newest first, 100 events each, only the bot's own
   * events where the server applies the `senders` filter) read when looking for the bot's own
   * in-doubt event by `unsigned.transaction_id`. A send older than that is not found and,
   * unless the room's start was reached, stays unresolved (held for an operator, never sent
   * twice). @defaultValue 10
   */
  lookupMaxPages: z.number().int().min(1).max(1_000).default(10),
});

/** The txnId retention herald trusts for a homeserver config, in ms. */
export function txnRetentionMsOf(homeserver: MatrixHomeserverConfig): number {
  return homeserver.txnRetentionMs ?? TXN_RETENTION_MS_BY_KIND[homeserver.kind];
}

/** The Matrix channel's account config. */
export const matrixConfigSchema = z.strictObject({
  /**
   * The homeserver's base URL (the client-server API root, without `/_matrix`), e.g.
   * `https://matrix.example.org`. A trailing `/` is removed.
   */
  homeserverUrl: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, "")),
  /**
   * Name of the env var holding the bot's access token (from a login with a fixed `device_id`,
   * see docs/channels/matrix.md). @defaultValue "MATRIX_ACCESS_TOKEN"
   */
  accessTokenEnv: envName.default("MATRIX_ACCESS_TOKEN"),
  /**
   * The bot's user id, when you want it checked: `/whoami` must return exactly this (compared
   * case-exactly, as the server spells it) or the account does not start. Absent: whatever
   * `/whoami` returns is used.
   */
  userId: userId.optional(),
  /**
   * The device id of the access token. Homeservers deduplicate transaction ids per device, so
   * it must stay the same for the life of the token: `/whoami` must report it, or the account
   * does not start.
   */
  deviceId: z.string().min(1).max(255),
  /**
   * Longest plain `body` per event, in UTF-16 units; longer text is split. Every event also
   * stays under `maxContentBytes`. @defaultValue 16_000
   */
  maxTextLength: z.number().int().min(2).max(60_000).default(MATRIX_DEFAULT_TEXT_LENGTH),
  /**
   * Budget for one event's `content` (body + formatted_body + relations + origin), in UTF-8
   * bytes of its JSON, under the 65,536-byte event limit with room for the envelope.
   * @defaultValue 60_000
   */
  maxContentBytes: z.number().int().min(1_000).max(64_000).default(60_000),
  /**
   * Largest file the bot uploads, in bytes: the homeserver's `m.upload.size`
   * (`GET /_matrix/client/v1/media/config`; Synapse's `max_upload_size`, 50 MiB by default).
   * A larger file fails with `AttachmentTooLargeError` before any upload. @defaultValue 52_428_800
   */
  maxUploadBytes: z.number().int().min(1).default(52_428_800),
  /**
   * `msgtype` of the bot's messages: `m.notice` (the spec's choice for bots; other bots should
   * not answer it) or `m.text`. @defaultValue "m.notice"
   */
  msgtype: z.enum(["m.notice", "m.text"]).default("m.notice"),
  /**
   * The one budget per room shared by sends, edits and redactions (Synapse `rc_message`
   * defaults to about 0.2/s with bursts of 10). @defaultValue `{ limit: 10, intervalMs: 10_000 }`
   */
  roomRateLimit: z
    .strictObject({
      limit: z.number().int().positive().default(10),
      intervalMs: z.number().int().positive().default(10_000),
    })
    .default({ limit: 10, intervalMs: 10_000 }),
  /** Least time between two live draft edits in one room, in ms. @defaultValue 1_500 */
  previewIntervalMs: z.number().int().positive().default(1_500),
  /** Per-request timeout for sends, edits and redactions, in ms. @defaultValue 30_000 */
  requestTimeoutMs: z.number().int().positive().default(30_000),
  /** The homeserver's software (txnId retention). @defaultValue `{ kind: "other" }` */
  homeserver: matrixHomeserverSchema.prefault({}),
  /** The `/sync` receiver. @defaultValue `{}` */
  sync: matrixSyncSchema.prefault({}),
  /** End-to-end encryption; absent: encrypted rooms are refused. */
  encryption: matrixEncryptionSchema.optional(),
});

/** A validated Matrix account config (defaults applied). */
export type MatrixConfig = z.infer<typeof matrixConfigSchema>;
/** A Matrix account config as written by a user (defaults optional). */
export type MatrixConfigInput = z.input<typeof matrixConfigSchema>;
/** The `homeserver` part of a validated config. */
export type MatrixHomeserverConfig = z.infer<typeof matrixHomeserverSchema>;
/** The `/sync` part of a validated config. */
export type MatrixSyncConfig = z.infer<typeof matrixSyncSchema>;
/** The validated `encryption` config. */
export type MatrixEncryptionConfig = z.infer<typeof matrixEncryptionSchema>;

/**
 * The secrets a Matrix account reads, trimmed and shape-checked at start with the SDK's
 * `readSecret` (a malformed one stops the account with the setting named; C49). The spec gives
 * access tokens no format (Synapse issues `syt_…`): one word, no whitespace.
 * Source: https://spec.matrix.org/v1.12/client-server-api/#using-access-tokens
 */
export const matrixSecrets = {
  /** The access token (`accessTokenEnv`). */
  accessToken: (config: Pick<MatrixConfig, "accessTokenEnv">): SecretSpec => ({
    channel: "matrix",
    name: config.accessTokenEnv,
    setting: "accessTokenEnv",
    what: "the Matrix access token",
    expected: "an access token (one word, e.g. syt_…)",
    where: "the access_token of /login, or your client's settings",
  }),
};
