/**
 * The `herald.config.json` schema (DESIGN §10–11). Secrets never live in the config: fields
 * ending in `Env` name the environment variable that holds them.
 *
 * @module
 */
import { z } from "zod";

const envName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name like HERALD_DATABASE_URL");

/** Where state lives: one SQLite file (default) or a PostgreSQL database. */
export const storeConfigSchema = z.union([
  z.strictObject({
    sqlite: z
      .object({
        /** File path, relative to the config file. */
        path: z.string().min(1).default(".herald/state.db"),
        synchronous: z.enum(["FULL", "NORMAL"]).default("FULL"),
      })
      .strict(),
  }),
  z.strictObject({
    postgres: z
      .object({
        /** Name of the env var holding the connection URL (it may contain a password). */
        urlEnv: envName,
        schema: z
          .string()
          .regex(/^[a-z_][a-z0-9_]*$/)
          .default("herald"),
        poolMax: z.number().int().positive().default(10),
      })
      .strict(),
  }),
]);

/**
 * Inbound authorization of a channel or account (DESIGN §5). Unset fields fall through to the
 * less specific level: account → channel → `receive` → `false`.
 */
export const inboundPolicySchema = z
  .object({
    /** Accept messages authored by other bots (our own are always dropped). */
    allowBots: z.boolean().optional(),
    /** In rooms, dispatch only messages that mention this bot (direct chats never need one). */
    requireMention: z.boolean().optional(),
  })
  .strict();

/** A gateway-failure notice: its text, and optionally a turn time limit in ms. */
export const failureNoticeSchema = z
  .object({
    /** The notice text (markdown), e.g. "The assistant failed; please try again." */
    text: z.string().trim().min(1),
    /** Also post it when the handler runs longer than this, in ms (the turn goes on). */
    timeoutMs: z.number().int().positive().optional(),
    /** The failure code in the notice's origin. @defaultValue "agent_failed_before_reply" */
    code: z
      .enum(["agent_failed_before_reply", "missing_api_key", "model_login_expired"])
      .optional(),
  })
  .strict();

/** One channel account: which plugin package, which account id, its plugin config. */
export const channelConfigSchema = z
  .object({
    /** npm package name of the channel plugin, e.g. `@herald/plugin-telegram`. */
    plugin: z.string().min(1),
    /** Account id inside the channel (one bot). */
    account: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '_', '.', '-' only")
      .default("main"),
    /** The plugin's own config, validated by its `configSchema`. */
    config: z.record(z.string(), z.unknown()).default({}),
    /** `allowBots` / `requireMention` of this account (overrides `receive`). */
    receive: inboundPolicySchema.optional(),
    /**
     * The largest webhook body this account accepts, in bytes (413 above it, nothing recorded).
     * @defaultValue the plugin's declared limit, else `http.maxBodyBytes`
     */
    maxBodyBytes: z.number().int().positive().optional(),
    /**
     * The notice posted where a message came from when its turn fails (the handler throws, or
     * runs longer than `timeoutMs`), tagged so no herald bot takes it as a prompt; `false` turns
     * off the gateway-wide one. @defaultValue off
     */
    failureNotice: z.union([z.literal(false), failureNoticeSchema]).optional(),
  })
  .strict();

/** The whole gateway config. */
export const heraldConfigSchema = z
  .object({
    store: storeConfigSchema.default({ sqlite: { path: ".herald/state.db", synchronous: "FULL" } }),
    channels: z.array(channelConfigSchema).default([]),
    /**
     * Inbound policy for every channel, and per channel id under `channels` (e.g.
     * `{ "requireMention": false, "channels": { "telegram": { "requireMention": true } } }`).
     */
    receive: inboundPolicySchema
      .extend({ channels: z.record(z.string().min(1), inboundPolicySchema).default({}) })
      .strict()
      .default({ channels: {} }),
    /**
     * Show the typing indicator while the bot handler works, on channels that have one, until
     * its first reply or the end of the turn. @defaultValue false
     */
    typing: z.boolean().default(false),
    /**
     * The gateway-failure notice of every channel account (an account's own `failureNotice`
     * wins; `false` there turns it off). @defaultValue off
     */
    failureNotice: failureNoticeSchema.optional(),
    /** Module exporting the bot handler (`export default async (turn) => …`), relative to the config. */
    handler: z.string().min(1).optional(),
    http: z
      .object({
        host: z.string().default("127.0.0.1"),
        port: z.number().int().min(0).max(65_535).default(8787),
        /**
         * The webhook body limit, in bytes, of routes whose plugin declares none (413 above it).
         * @defaultValue 1048576 (1 MiB)
         */
        maxBodyBytes: z.number().int().positive().optional(),
      })
      .strict()
      .default({ host: "127.0.0.1", port: 8787 }),
    /**
     * The web console at `/console` (queue inspector, conversation view, accounts); off unless
     * this section is present. Sign-in uses the token in the env var `tokenEnv` names.
     */
    console: z
      .object({
        /** Name of the env var holding the operator token (at least 16 characters). */
        tokenEnv: envName,
        /**
         * Serve the console on a non-loopback `http.host` too (put it behind TLS and your own
         * access control). @defaultValue false
         */
        allowRemote: z.boolean().default(false),
        /**
         * How long a console sign-in lasts, in ms (at least 1 s): the session cookie's `Max-Age`,
         * and the age past which the gateway refuses it. @defaultValue 43200000 (12 hours)
         */
        sessionTtlMs: z.number().int().min(1000).optional(),
      })
      .strict()
      .optional(),
    log: z
      .object({
        level: z
          .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
          .default("info"),
      })
      .strict()
      .default({ level: "info" }),
    delivery: z
      .object({
        workerId: z.string().min(1).optional(),
        concurrency: z.number().int().positive().optional(),
        leaseMs: z.number().int().positive().optional(),
        /**
         * Replies older than this (ms from when they were written) are not sent: they end
         * `expired` ([H25], C55; docs/concepts/sending.md "maxAgeMs"). A send's own `maxAgeMs`
         * and `delivery.channels.<id>.maxAgeMs` win. @defaultValue none (no age limit)
         */
        maxAgeMs: z.number().int().positive().optional(),
        /** Per channel id: `{ "telegram": { "maxAgeMs": 60000 } }`. */
        channels: z
          .record(
            z.string().min(1),
            z.object({ maxAgeMs: z.number().int().positive().optional() }).strict(),
          )
          .optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

/** A validated gateway config. */
export type HeraldConfig = z.infer<typeof heraldConfigSchema>;

/**
 * The receive options of a config's inbound policy: runtime-wide `allowBots` /
 * `requireMention` and one override per channel id (accounts add theirs in `createGateway`).
 */
export function receivePolicyOf(config: HeraldConfig): {
  allowBots?: boolean;
  requireMention?: boolean;
  policies: { channel: string; allowBots?: boolean; requireMention?: boolean }[];
} {
  const { channels, allowBots, requireMention } = config.receive;
  return {
    ...(allowBots === undefined ? {} : { allowBots }),
    ...(requireMention === undefined ? {} : { requireMention }),
    policies: Object.entries(channels).map(([channel, p]) => ({
      channel,
      ...(p.allowBots === undefined ? {} : { allowBots: p.allowBots }),
      ...(p.requireMention === undefined ? {} : { requireMention: p.requireMention }),
    })),
  };
}
