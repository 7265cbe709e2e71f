/**
 * Discord errors and their classification (DESIGN §3 "two evidence axes"; STYLE: three kinds of
 * failure). {@link DiscordApiError}: Discord answered and said no — it carries Discord's own JSON
 * `code` (`10008`, `50035`…), the HTTP status, and for a 429 the wait. {@link DiscordNetworkError}:
 * no answer — refused (provably never dispatched) or reset / timed out (maybe sent).
 * {@link classifyError} converts them once into herald's terms: the 429 body's `retry_after`
 * (**seconds**, a float) and discord.js's `RateLimitError.retryAfter` (**ms**) both become
 * `retryAfterMs` here and nowhere else.
 *
 * Source: https://discord.com/developers/docs/topics/opcodes-and-status-codes#json-json-error-codes,
 * https://discord.com/developers/docs/topics/rate-limits
 *
 * @module
 */
import { DiscordAPIError, HTTPError, RateLimitError } from "@discordjs/rest";
import {
  ChannelOptionsError,
  type ClassifiedFailure,
  classifyNetworkError,
  HeraldError,
  NotImplementedError,
  networkFailureOf,
  PlatformApiError,
  PlatformNetworkError,
  parseRetryAfter,
  platformErrors,
  RemoteMediaError,
  redactSecrets,
} from "@herald/plugin-sdk/channel-message";

/** Discord JSON error codes herald acts on (discord-api-types `RESTJSONErrorCodes`). */
export const DISCORD_CODES = {
  unknownChannel: 10003,
  unknownMessage: 10008,
  sendMessagesTemporarilyDisabled: 40004,
  cannotSendInForumChannel: 40058,
  serviceResourceRateLimited: 40062,
  missingAccess: 50001,
  cannotSendToUser: 50007,
  cannotSendInNonTextChannel: 50008,
  missingPermissions: 50013,
  invalidFormBody: 50035,
  apiResourceOverloaded: 130000,
  cannotReplyWithoutReadHistory: 160002,
} as const;

/** What Discord's answer said, in herald's units (the wire's seconds already converted). */
export type DiscordAnswer = {
  status: number;
  /** Discord's JSON error code, when the body had one (`0` is "general error"). */
  code?: number | undefined;
  description?: string | undefined;
  /** For a 429: the wait, in ms. */
  retryAfterMs?: number | undefined;
  /** For a 429: the global limit was hit (every route waits). */
  global?: boolean | undefined;
  /** For a 429: `X-RateLimit-Scope` (`user`, `global`, `shared`). */
  scope?: string | undefined;
  /**
   * For a 429: it came from Discord's edge (Cloudflare: not JSON, no `X-RateLimit-*` header),
   * which restricts the whole address, every route.
   */
  edge?: boolean | undefined;
  /** Nested `errors` of a 50035, flattened into `path: message` lines. */
  fieldErrors?: readonly string[] | undefined;
};

/**
 * Discord answered with an error. The name carries Discord's JSON code, e.g.
 * `DiscordApiError[10008]` (or `DiscordApiError[http_502]` without one), so logs are greppable;
 * a 50035's field errors are flattened into the message.
 */
export class DiscordApiError extends PlatformApiError {
  /** Discord's JSON error code; undefined when the body had none (a proxy's 502). */
  readonly discordCode: number | undefined;
  readonly global: boolean;
  readonly scope: string | undefined;
  /** A 429 from Discord's edge (Cloudflare), not the API: the address is restricted. */
  readonly edge: boolean;
  readonly fieldErrors: readonly string[];

  /** @param call - the REST call, e.g. `POST /channels/123/messages`. */
  constructor(call: string, answer: DiscordAnswer, options?: ErrorOptions) {
    const fields = answer.fieldErrors ?? [];
    super(
      "HERALD_DISCORD_API",
      "Discord",
      call,
      {
        status: answer.status,
        platformCode:
          answer.status === 429
            ? "429"
            : answer.code !== undefined && answer.code !== 0
              ? String(answer.code)
              : `http_${answer.status}`,
        retryAfterMs: answer.retryAfterMs,
        description: [answer.description, ...fields].filter(Boolean).join("; "),
      },
      options,
    );
    this.discordCode = answer.code;
    this.global = answer.global ?? false;
    this.scope = answer.scope;
    this.edge = answer.edge ?? false;
    this.fieldErrors = fields;
  }
}

/** Discord never answered (the SDK's network evidence: refused, reset, timeout…). */
export const { NetworkError: DiscordNetworkError } = platformErrors("Discord", {
  code: "HERALD_DISCORD",
  platform: "Discord",
});
/** An instance of {@link DiscordNetworkError} (the SDK's `PlatformNetworkError`). */
export type DiscordNetworkError = PlatformNetworkError;

/** A message the Discord channel cannot render or address (a malformed id, an oversized embed). */
export class DiscordRenderError extends HeraldError {
  constructor(message: string) {
    super("HERALD_DISCORD_RENDER", message);
  }
}

/** Replaces the bot token in `text` (raw, trimmed, URL-encoded) with `[redacted]`. */
export function redactToken(text: string, token: string | undefined): string {
  return token ? redactSecrets(text, [token]) : text;
}

/** `path: message` lines of a Discord `errors` object (nested `_errors`). */
export function flattenFieldErrors(errors: unknown, path = ""): string[] {
  if (!errors || typeof errors !== "object") return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(errors as Record<string, unknown>)) {
    if (key === "_errors" && Array.isArray(value)) {
      for (const e of value as Array<{ code?: string; message?: string }>) {
        out.push(`${path || "body"}: ${e.code ?? "?"} ${e.message ?? ""}`.trim());
      }
      continue;
    }
    const next = path ? (/^\d+$/.test(key) ? `${path}[${key}]` : `${path}.${key}`) : key;
    out.push(...flattenFieldErrors(value, next));
  }
  return out;
}

/**
 * A 429 as herald reads it, whatever its shape (PLATFORMS.md §9, CASES C45):
 * - the wait: the body's `retry_after` (seconds, a float) converted once; else `Retry-After`;
 *   else `X-RateLimit-Reset-After`; none, or none above 0 → no wait, so herald backs off on its
 *   own instead of retrying at once;
 * - global: the body's `global: true` (the OpenAPI description promises no header), or
 *   `X-RateLimit-Global`, or `X-RateLimit-Scope: global`;
 * - edge: a 429 that is not Discord's JSON and carries no `X-RateLimit-*` header comes from
 *   Cloudflare, which restricts the whole address (docs topics/rate-limits, "Invalid Request Limit").
 *
 * @param body - the parsed JSON body, `undefined` when it was not JSON.
 */
export function answer429(
  call: string,
  body: unknown,
  headers: Headers | undefined,
  cause: unknown,
): DiscordApiError {
  const json =
    body !== null && typeof body === "object"
      ? (body as { retry_after?: unknown; global?: unknown; message?: unknown; code?: unknown })
      : undefined;
  const scope = headers?.get("x-ratelimit-scope") ?? undefined;
  const fromDiscord =
    typeof json?.message === "string" ||
    [...(headers?.keys() ?? [])].some((h) => h.toLowerCase().startsWith("x-ratelimit-"));
  const resetAfter = headers?.get("x-ratelimit-reset-after");
  const waits = [
    typeof json?.retry_after === "number" ? Math.ceil(json.retry_after * 1_000) : undefined,
    parseRetryAfter(headers?.get("retry-after")),
    resetAfter ? parseRetryAfter(resetAfter) : undefined,
  ];
  const retryAfterMs = waits.find((w) => w !== undefined);
  return new DiscordApiError(
    call,
    {
      status: 429,
      ...(typeof json?.code === "number" ? { code: json.code } : {}),
      description:
        typeof json?.message === "string"
          ? json.message
          : fromDiscord
            ? "rate limited"
            : "rate limited by Discord's edge (Cloudflare): the address is restricted",
      ...(retryAfterMs !== undefined && retryAfterMs > 0 ? { retryAfterMs } : {}),
      global: json?.global === true || headers?.has("x-ratelimit-global") === true,
      scope,
      edge: !fromDiscord,
    },
    { cause },
  );
}

const waitOf = (ms: number) => (ms > 0 ? { retryAfterMs: ms } : {});

/** discord.js's own errors (and ours) as a {@link DiscordApiError}, or undefined. */
export function asDiscordApiError(error: unknown, call?: string): DiscordApiError | undefined {
  if (error instanceof DiscordApiError) return error;
  if (error instanceof RateLimitError) {
    return new DiscordApiError(
      call ?? `${error.method.toUpperCase()} ${error.route}`,
      {
        status: 429,
        description: "You are being rate limited.",
        // discord.js: Retry-After (or the bucket's reset) in ms, offset included; none → herald
        // backs off on its own (a 0 would retry at once).
        ...waitOf(error.retryAfter || error.timeToReset),
        global: error.global,
        scope: error.scope,
      },
      { cause: error },
    );
  }
  if (error instanceof DiscordAPIError) {
    const raw = error.rawError as { code?: unknown; message?: unknown; errors?: unknown };
    return new DiscordApiError(
      call ?? `${error.method.toUpperCase()} ${new URL(error.url).pathname}`,
      {
        status: error.status,
        code: typeof raw.code === "number" ? raw.code : undefined,
        description: typeof raw.message === "string" ? raw.message : error.message,
        fieldErrors: flattenFieldErrors(raw.errors),
      },
      { cause: error },
    );
  }
  if (error instanceof HTTPError) {
    return new DiscordApiError(
      call ?? `${error.method.toUpperCase()} ${new URL(error.url).pathname}`,
      { status: error.status, description: error.message },
      { cause: error },
    );
  }
  return undefined;
}

const PERMISSION = new Set<number>([
  DISCORD_CODES.missingAccess,
  DISCORD_CODES.cannotSendToUser,
  DISCORD_CODES.missingPermissions,
  DISCORD_CODES.cannotReplyWithoutReadHistory,
  DISCORD_CODES.sendMessagesTemporarilyDisabled,
]);
const NOT_FOUND = new Set<number>([DISCORD_CODES.unknownChannel, DISCORD_CODES.unknownMessage]);
/** Discord's "try again shortly" codes: a short, bounded retry (never a `maybe_sent`). */
const OVERLOADED = new Set<number>([
  DISCORD_CODES.serviceResourceRateLimited,
  DISCORD_CODES.apiResourceOverloaded,
]);
/** Wait before retrying an overloaded resource, in ms. */
export const OVERLOADED_RETRY_MS = 1_000;

function classifyAnswer(error: DiscordApiError): ClassifiedFailure {
  const base = { message: error.message, platformCode: error.platformCode };
  const { status, discordCode: code } = error;
  if (status === 429) {
    return {
      ...base,
      kind: "rate_limit",
      evidence: "not_dispatched",
      rateLimitScope: error.global || error.scope === "global" || error.edge ? "account" : "route",
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    };
  }
  // 502: the edge never reached the API (PLATFORMS §8) — safe to resend. 500/503/504 may have run.
  if (status === 502) return { ...base, kind: "transient", evidence: "not_dispatched" };
  if (status >= 500) return { ...base, kind: "transient", evidence: "maybe_sent" };
  if (code !== undefined && OVERLOADED.has(code)) {
    return {
      ...base,
      kind: "transient",
      evidence: "not_dispatched",
      retryAfterMs: OVERLOADED_RETRY_MS,
    };
  }
  const kind =
    status === 401
      ? "auth"
      : code !== undefined && PERMISSION.has(code)
        ? "permission"
        : code !== undefined && NOT_FOUND.has(code)
          ? "not_found"
          : status === 403
            ? "permission"
            : status === 404
              ? "not_found"
              : status === 409
                ? "conflict"
                : "invalid_payload";
  return { ...base, kind, evidence: "not_dispatched" };
}

/**
 * Classifies what a Discord call threw:
 * - **429** (our {@link DiscordApiError}, or discord.js's `RateLimitError`) → `rate_limit`,
 *   `not_dispatched`, `retryAfterMs` (the body's `retry_after` seconds × 1000, else
 *   `Retry-After`, else discord.js's ms; absent when the 429 named no wait, so herald backs off),
 *   scope `account` for the global limit (body `global: true`, `X-RateLimit-Global` or scope
 *   `global`) and for Cloudflare's restriction of the address, else the route (`user`, `shared`);
 * - **502** → `transient`, `not_dispatched` (never reached the API); **500, 503, 504** →
 *   `transient`, `maybe_sent`;
 * - **40062**, **130000** (resource overloaded) → `transient`, `not_dispatched`, a short wait;
 * - **401** → `auth`; **50001, 50007, 50013, 160002, 40004** and other 403s →
 *   `permission`; **10003, 10008** and other 404s → `not_found`; **50035** (field errors
 *   flattened into the message), **50008** (not a text channel: what Discord answers for a
 *   forum, media or category channel — no grant fixes it), **40058** and other 4xx →
 *   `invalid_payload` — all `not_dispatched`;
 * - no answer: refused / DNS / connect timeout → `transient`, `not_dispatched`; reset, timeout,
 *   abort → `transient`, `maybe_sent`;
 * - a remote attachment herald could not fetch (`RemoteMediaError`, nothing reached Discord):
 *   timeout, network, 5xx → `transient`; a blocked address, a bad URL, too large, a 4xx →
 *   `invalid_payload` — both `not_dispatched`;
 * - a {@link DiscordRenderError}, malformed channel options, a `NotImplementedError` (a forum
 *   post) → `invalid_payload`; anything else → `unknown`, `maybe_sent`.
 *
 * @param token - redacted from the returned message, when given.
 */
export function classifyError(error: unknown, token?: string): ClassifiedFailure {
  const redact = (text: string) => redactToken(text, token);
  const api = asDiscordApiError(error);
  if (api) {
    const failure = classifyAnswer(api);
    return { ...failure, message: redact(failure.message) };
  }
  if (error instanceof PlatformNetworkError) return classifyNetworkError(error, redact);
  if (error instanceof DiscordRenderError) {
    return { kind: "invalid_payload", evidence: "not_dispatched", message: redact(error.message) };
  }
  if (error instanceof RemoteMediaError) {
    // Nothing reached Discord: a fetch that may work later is transient, a refused one permanent.
    const later =
      error.reason === "timeout" ||
      error.reason === "network" ||
      error.reason === "aborted" ||
      (error.reason === "http_status" && (error.status ?? 0) >= 500);
    return {
      kind: later ? "transient" : "invalid_payload",
      evidence: "not_dispatched",
      message: redact(error.message),
      platformCode: `media_${error.reason}`,
    };
  }
  if (error instanceof ChannelOptionsError || error instanceof NotImplementedError) {
    return { kind: "invalid_payload", evidence: "not_dispatched", message: redact(error.message) };
  }
  if (error instanceof Error && isNetworkShaped(error)) {
    return classifyNetworkError(new DiscordNetworkError("call", error), redact);
  }
  return {
    kind: "unknown",
    evidence: "maybe_sent",
    message: redact(error instanceof Error ? error.message : String(error)),
  };
}

/** An error thrown by undici / fetch / an abort, not by Discord's answer. */
function isNetworkShaped(error: Error): boolean {
  return networkFailureOf(error).reason !== "other";
}
