/**
 * Telegram errors and their classification (DESIGN §3 "two evidence axes"; STYLE: three kinds
 * of failure). {@link TelegramApiError}: the Bot API answered and said no — it carries the
 * platform's own `error_code`, `description` and `parameters` (`retry_after` in **seconds**).
 * {@link TelegramNetworkError}: no answer — refused (provably never dispatched) or reset / timed
 * out (maybe sent). {@link classifyError} converts them once into herald's terms; `retry_after`
 * becomes `retryAfterMs` here and nowhere else.
 *
 * The bot token is part of every Bot API URL (`/bot<token>/<method>`), so messages built here
 * never contain a URL and are passed through {@link redactToken} anyway. Network evidence,
 * redaction and the error base come from `@herald/plugin-sdk/channel-message` (one copy).
 *
 * @module
 */
import {
  type ClassifiedFailure,
  classifyNetworkError,
  type DeliveryFailureKind,
  HeraldError,
  type NetworkFailureReason,
  type PlatformNetworkError,
  platformErrors,
  redactSecrets,
} from "@herald/plugin-sdk/channel-message";

/** What the Bot API puts next to an error (`ResponseParameters`), as on the wire. */
export type TelegramErrorParameters = {
  /** Seconds to wait before repeating the request (429). */
  retry_after?: number;
  /** The group was upgraded to a supergroup with this id. */
  migrate_to_chat_id?: number;
};

/**
 * The Bot API answered `{ ok: false }`. The name carries the code, e.g. `TelegramApiError[429]`,
 * so logs are greppable.
 *
 * Source: https://core.telegram.org/bots/api#making-requests
 */
export class TelegramApiError extends HeraldError {
  /** The API method, e.g. `sendMessage`. */
  readonly method: string;
  /** The Bot API's `error_code` (an HTTP status). */
  readonly errorCode: number;
  /** The Bot API's `description`, e.g. `Bad Request: message is not modified: …`. */
  readonly description: string;
  /** The Bot API's `parameters`, as on the wire. */
  readonly parameters: TelegramErrorParameters;

  constructor(
    method: string,
    answer: { error_code: number; description: string; parameters?: TelegramErrorParameters },
    redact: (text: string) => string = (t) => t,
  ) {
    const description = redact(answer.description);
    super("HERALD_TELEGRAM_API", `${method} answered ${answer.error_code}: ${description}`);
    this.name = `TelegramApiError[${answer.error_code}]`;
    this.method = method;
    this.errorCode = answer.error_code;
    this.description = description;
    this.parameters = { ...answer.parameters };
  }

  /** The wait the answer asked for, in ms (`parameters.retry_after` is in seconds). */
  get retryAfterMs(): number | undefined {
    const seconds = this.parameters.retry_after;
    return seconds === undefined ? undefined : seconds * 1_000;
  }

  /** True for the answer to an edit whose content equals what the message shows. */
  get notModified(): boolean {
    return this.errorCode === 400 && /message is not modified/i.test(this.description);
  }
}

/** Why a request got no answer (the SDK's {@link NetworkFailureReason}). */
export type TelegramNetworkFailure = NetworkFailureReason;

/**
 * The Bot API never answered. `dispatched` is false only when the request provably never left
 * (connection refused, DNS failure, connect timeout, no route, TLS); a reset or a timeout after
 * the request was written may have been applied by Telegram. The reason comes from the SDK's
 * `networkFailureOf` (every undici and Node code, the whole `cause` chain).
 */
export const { NetworkError: TelegramNetworkError } = platformErrors("Telegram", {
  code: "HERALD_TELEGRAM",
  platform: "the Bot API",
});
/** An instance of {@link TelegramNetworkError} (the SDK's `PlatformNetworkError`). */
export type TelegramNetworkError = PlatformNetworkError;

/** A message the Telegram channel cannot render (nothing to send, a media source missing). */
export class TelegramRenderError extends HeraldError {
  constructor(message: string) {
    super("HERALD_TELEGRAM_RENDER", message);
  }
}

/**
 * Replaces the bot token — and its secret half, after the colon — in `text` with `[redacted]`,
 * in every form the SDK's `redactSecrets` knows (raw, trimmed, URL-encoded).
 *
 * @example redactToken("GET /bot123456:ABCDEFGH/getMe", "123456:ABCDEFGH") === "GET /bot[redacted]/getMe"
 */
export function redactToken(text: string, token: string | undefined): string {
  if (!token) return text;
  const trimmed = token.trim();
  const secret = trimmed.slice(trimmed.indexOf(":") + 1);
  return redactSecrets(text, secret.length >= 8 ? [token, secret] : [token]);
}

const PERMISSION = [
  "not enough rights",
  "have no rights",
  "need administrator rights",
  "chat_admin_required",
  "chat_write_forbidden",
  "topic_closed",
  "message can't be edited",
  "message can't be deleted",
  "bot was blocked",
  "bot was kicked",
  "not a member",
  "user is deactivated",
  "bot can't initiate conversation",
  "bot can't send messages to bots",
];
const NOT_FOUND = [
  "chat not found",
  "message to edit not found",
  "message to delete not found",
  "message thread not found",
  "message to be replied not found",
  "message to reply not found",
  "message not found",
  "message_id_invalid",
  "topic_deleted",
  "topic not found",
  "group chat was upgraded to a supergroup",
  "user not found",
];

function kindOf400(description: string): DeliveryFailureKind {
  const d = description.toLowerCase();
  if (/message is not modified/.test(d)) return "conflict";
  if (NOT_FOUND.some((p) => d.includes(p))) return "not_found";
  if (PERMISSION.some((p) => d.includes(p))) return "permission";
  return "invalid_payload";
}

/**
 * Classifies what a Telegram call threw (PLATFORMS.md §3, Telegram):
 * - **429** → `rate_limit`, `not_dispatched`, `retryAfterMs` = `parameters.retry_after` × 1000
 *   (seconds on the wire), scope `chat`;
 * - **400** by description: "message is not modified" → `conflict` (edits treat it as success
 *   before it gets here); "chat not found", "message to edit not found", "message thread not
 *   found", "message to be replied not found", "MESSAGE_ID_INVALID", "TOPIC_DELETED", "group
 *   chat was upgraded to a supergroup" → `not_found`; "not enough rights", "TOPIC_CLOSED",
 *   "message can't be edited" → `permission`; anything else ("can't parse entities", "message
 *   is too long", "wrong file identifier"…) → `invalid_payload` — all `not_dispatched`;
 * - **401**, and **404** (a wrong token or `apiRoot`) → `auth`; **403** (blocked, kicked) →
 *   `permission`; **409** → `conflict`; other 4xx → `invalid_payload`;
 * - **5xx** (and non-JSON proxy answers) → `transient`, `maybe_sent`;
 * - no answer: refused / DNS / connect timeout → `transient`, `not_dispatched`; reset,
 *   timeout, abort → `transient`, `maybe_sent`;
 * - a {@link TelegramRenderError} → `invalid_payload`; anything else → `unknown`, `maybe_sent`.
 *
 * grammY's own `GrammyError` / `HttpError` are classified the same way (by shape), so code that
 * calls grammY without herald's client transformer still classifies correctly.
 *
 * @param token - redacted from the returned message, when given.
 */
export function classifyError(error: unknown, token?: string): ClassifiedFailure {
  const redact = (text: string) => redactToken(text, token);
  const api = asApiError(error, redact);
  if (api) return classifyApiError(api);
  const net = asNetworkError(error);
  if (net) return classifyNetworkError(net, redact);
  if (error instanceof TelegramRenderError) {
    return { kind: "invalid_payload", evidence: "not_dispatched", message: redact(error.message) };
  }
  return {
    kind: "unknown",
    evidence: "maybe_sent",
    message: redact(error instanceof Error ? error.message : String(error)),
  };
}

function classifyApiError(error: TelegramApiError): ClassifiedFailure {
  const base = { message: error.message, platformCode: String(error.errorCode) };
  const code = error.errorCode;
  if (code === 429) {
    const seconds = error.parameters.retry_after;
    return {
      ...base,
      kind: "rate_limit",
      evidence: "not_dispatched",
      rateLimitScope: "chat",
      ...(typeof seconds === "number" ? { retryAfterMs: Math.max(0, seconds * 1_000) } : {}),
    };
  }
  if (code >= 500) return { ...base, kind: "transient", evidence: "maybe_sent" };
  let kind: DeliveryFailureKind;
  if (code === 400) kind = kindOf400(error.description);
  else if (code === 401 || code === 404) kind = "auth";
  else if (code === 403) kind = "permission";
  else if (code === 409) kind = "conflict";
  else if (code >= 400) kind = "invalid_payload";
  else return { ...base, kind: "unknown", evidence: "maybe_sent" };
  const migrated = error.parameters.migrate_to_chat_id;
  return {
    ...base,
    kind,
    evidence: "not_dispatched",
    ...(migrated !== undefined
      ? { message: `${base.message} (the group is now the supergroup ${migrated})` }
      : {}),
  };
}

/** Our own API error, or grammY's `GrammyError` (by shape) converted to one. */
function asApiError(error: unknown, redact: (t: string) => string): TelegramApiError | undefined {
  if (error instanceof TelegramApiError) return error;
  const e = error as {
    name?: string;
    error_code?: unknown;
    description?: unknown;
    method?: unknown;
    parameters?: TelegramErrorParameters;
  } | null;
  if (e?.name === "GrammyError" && typeof e.error_code === "number") {
    return new TelegramApiError(
      typeof e.method === "string" ? e.method : "call",
      {
        error_code: e.error_code,
        description: String(e.description ?? ""),
        ...(e.parameters ? { parameters: e.parameters } : {}),
      },
      redact,
    );
  }
  return undefined;
}

/** Our own network error, or grammY's `HttpError` (by shape) converted to one. */
function asNetworkError(error: unknown): TelegramNetworkError | undefined {
  if (error instanceof TelegramNetworkError) return error;
  const e = error as { name?: string; error?: unknown; message?: string } | null;
  if (e?.name === "HttpError") {
    const method = /'([A-Za-z]+)'/.exec(e.message ?? "")?.[1] ?? "call";
    return new TelegramNetworkError(method, e.error);
  }
  return undefined;
}
