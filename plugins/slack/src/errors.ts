/**
 * Slack errors and their classification (DESIGN §3 "two evidence axes"; PLATFORMS.md §3c). The
 * Web API answers almost everything with HTTP 200 and `{ ok: false, error: "<code>" }`; an
 * `ok: false` body is a failure whatever the HTTP status. `@slack/web-api` throws:
 * `WebAPIPlatformError` (`.data.error`), `WebAPIRateLimitedError` (`.retryAfter`, **seconds**,
 * only with `rejectRateLimitedCalls`), `WebAPIHTTPError` (`.statusCode`, `.body`) and
 * `WebAPIRequestError` (`.original`: no answer). {@link classifyError} converts them once into
 * herald's terms; `retryAfter` becomes `retryAfterMs` here and nowhere else.
 *
 * @module
 */
import {
  type ClassifiedFailure,
  classifyHttpAnswer,
  classifyNetworkError,
  type DeliveryFailureKind,
  HeraldError,
  ownValue,
  type PlatformNetworkError,
  platformErrors,
  redactSecrets,
} from "@herald/plugin-sdk/channel-message";

/** `@slack/web-api`'s error codes (its `ErrorCode` enum), matched by value. */
const SDK_CODES = {
  request: "slack_webapi_request_error",
  http: "slack_webapi_http_error",
  platform: "slack_webapi_platform_error",
  rateLimited: "slack_webapi_rate_limited_error",
} as const;

/** Slack's platform error codes by herald failure kind (PLATFORMS.md §3c). */
const KIND_BY_CODE: Readonly<Record<string, DeliveryFailureKind>> = {
  ratelimited: "rate_limit",
  rate_limited: "rate_limit",
  invalid_auth: "auth",
  not_authed: "auth",
  account_inactive: "auth",
  token_revoked: "auth",
  token_expired: "auth",
  org_login_required: "auth",
  missing_scope: "permission",
  no_permission: "permission",
  not_in_channel: "permission",
  is_archived: "permission",
  ekm_access_denied: "permission",
  cant_update_message: "permission",
  cant_delete_message: "permission",
  edit_window_closed: "permission",
  as_user_not_supported: "permission",
  access_denied: "permission",
  channel_not_found: "not_found",
  message_not_found: "not_found",
  thread_not_found: "not_found",
  user_not_found: "not_found",
  file_not_found: "not_found",
  msg_too_long: "invalid_payload",
  no_text: "invalid_payload",
  invalid_blocks: "invalid_payload",
  invalid_blocks_format: "invalid_payload",
  msg_blocks_too_long: "invalid_payload",
  too_many_attachments: "invalid_payload",
  invalid_metadata_format: "invalid_payload",
  invalid_metadata_schema: "invalid_payload",
  invalid_chunks: "invalid_payload",
  invalid_arguments: "invalid_payload",
  invalid_arg_name: "invalid_payload",
  invalid_form_data: "invalid_payload",
  invalid_charset: "invalid_payload",
  markdown_text_conflict: "invalid_payload",
  duplicate_message_not_found: "conflict",
  duplicate_channel_not_found: "conflict",
  message_not_in_streaming_state: "conflict",
  internal_error: "transient",
  fatal_error: "transient",
  service_unavailable: "transient",
  request_timeout: "transient",
  team_added_to_org: "transient",
};

/** Platform codes after which Slack may have applied the call (it failed part way). */
const MAYBE_APPLIED = new Set(["internal_error", "fatal_error", "service_unavailable"]);

/** Codes starting with these are permission failures (`restricted_action_read_only_channel`, …). */
const PERMISSION_PREFIXES = ["restricted_action"];

/** The herald kind of a Slack platform error code, if Slack documents it. */
export function kindOfSlackCode(code: string): DeliveryFailureKind | undefined {
  // `ownValue`: a code such as "constructor" is not one of ours (C49).
  const known = ownValue(KIND_BY_CODE, code);
  if (known) return known;
  return PERMISSION_PREFIXES.some((p) => code.startsWith(p)) ? "permission" : undefined;
}

/**
 * Slack answered 429 without a usable `Retry-After` header: the client's fetch hook throws this
 * so the failure is a rate limit (backed off) rather than an unreadable SDK message.
 */
export class SlackRateLimitWithoutWaitError extends HeraldError {
  constructor(method: string) {
    super("HERALD_SLACK_RATE_LIMITED", `${method}: Slack answered 429 without Retry-After`);
  }
}

/**
 * The Web API never answered. `dispatched` is false only when the request provably never left
 * (connection refused, DNS, connect timeout); a reset or a timeout may have been applied.
 */
export const { NetworkError: SlackNetworkError } = platformErrors("Slack", {
  code: "HERALD_SLACK",
  platform: "the Slack Web API",
});
/** An instance of {@link SlackNetworkError} (the SDK's `PlatformNetworkError`). */
export type SlackNetworkError = PlatformNetworkError;

/**
 * A file upload failed before the share (`files.completeUploadExternal`): nothing is visible,
 * so a retry is safe (`not_dispatched`). `cause` is what the step threw.
 */
export class SlackUploadError extends HeraldError {
  /** The step that failed: reading the bytes, asking for the upload URL, or uploading them. */
  readonly step: "read" | "get_upload_url" | "upload";
  constructor(step: SlackUploadError["step"], cause: unknown) {
    super(
      "HERALD_SLACK_UPLOAD",
      `file upload failed at ${step} (nothing was shared): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.step = step;
  }
}

/** Remote-media failures that will not get better by retrying. */
const MEDIA_PERMANENT = new Set(["bad_url", "blocked_address", "too_large", "too_many_redirects"]);

/**
 * Slack answered `ok: true` but without what the call returns (`chat.postMessage` without a
 * `ts`): the call was applied, so the outcome is unknown ("maybe sent", then reconciliation),
 * never a permanent failure.
 */
export class SlackAnswerError extends HeraldError {
  /** @param method - the Web API method, e.g. `chat.postMessage`. */
  constructor(method: string, missing: string) {
    super("HERALD_SLACK_ANSWER", `${method} answered ok without ${missing}`);
  }
}

/** A message the Slack channel cannot render or address (nothing to send, a malformed ref). */
export class SlackRenderError extends HeraldError {
  constructor(message: string) {
    super("HERALD_SLACK_RENDER", message);
  }
}

/**
 * Replaces the tokens in `text` with `[redacted]` (raw, trimmed and URL-encoded forms; the
 * SDK's `redactSecrets`).
 */
export function redactTokens(text: string, secrets: readonly (string | undefined)[]): string {
  const list = secrets.filter((s): s is string => typeof s === "string" && s.length > 0);
  return list.length ? redactSecrets(text, list) : text;
}

type SdkError = {
  code?: unknown;
  message?: unknown;
  data?: { error?: unknown; response_metadata?: unknown };
  retryAfter?: unknown;
  statusCode?: unknown;
  statusMessage?: unknown;
  body?: unknown;
  headers?: Record<string, string>;
  original?: unknown;
};

/** The `error` of an `ok: false` body (the SDK parses JSON bodies; a string is tried too). */
function bodyCode(body: unknown): string | undefined {
  let parsed = body as { ok?: unknown; error?: unknown } | null | undefined;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      return undefined;
    }
  }
  return parsed?.ok === false && typeof parsed.error === "string" ? parsed.error : undefined;
}

/** A rate limit: nothing was posted; the channel waits `retryAfterMs` (else core backs off). */
function rateLimited(message: string, retryAfterMs?: number): ClassifiedFailure {
  return {
    kind: "rate_limit",
    evidence: "not_dispatched",
    message,
    platformCode: "ratelimited",
    rateLimitScope: "chat",
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

function platformFailure(
  code: string,
  message: string,
  status?: number,
): ClassifiedFailure | undefined {
  const kind = kindOfSlackCode(code);
  if (!kind) return undefined;
  const base = { message, platformCode: code };
  if (kind === "rate_limit") return rateLimited(message);
  if (kind === "transient") {
    const maybe = MAYBE_APPLIED.has(code) || (status !== undefined && status >= 500);
    return { ...base, kind, evidence: maybe ? "maybe_sent" : "not_dispatched" };
  }
  return { ...base, kind, evidence: "not_dispatched" };
}

/**
 * Classifies what a Slack call threw (PLATFORMS.md §3c). A rate limit pauses the channel
 * (`rateLimitScope: "chat"`: `chat.postMessage` is limited per channel, and the channel's edits
 * wait with it):
 * - `WebAPIRateLimitedError` (HTTP 429 + `Retry-After` seconds) → `rate_limit`, `not_dispatched`,
 *   `retryAfterMs` = seconds × 1000; a 429 without a usable header, or HTTP 200
 *   `{ error: "ratelimited" }` (C06) → `rate_limit` without a wait (backoff);
 * - platform codes: `invalid_auth`, `token_revoked`, … → `auth`; `missing_scope`,
 *   `not_in_channel`, `is_archived`, `cant_update_message`, … → `permission`;
 *   `channel_not_found`, `message_not_found`, `thread_not_found` → `not_found`; `msg_too_long`,
 *   `invalid_blocks`, … → `invalid_payload`; `duplicate_*_not_found` → `conflict` — all
 *   `not_dispatched`; `internal_error`, `fatal_error`, `service_unavailable` → `transient`,
 *   `maybe_sent` (Slack may have posted part of it);
 * - `WebAPIHTTPError`: 5xx → `transient`, `maybe_sent`; else its body's code, else its status;
 * - `WebAPIRequestError` (no answer): refused / DNS / connect timeout → `transient`,
 *   `not_dispatched`; reset, timeout, abort → `transient`, `maybe_sent`;
 * - a {@link SlackUploadError} (before the file was shared) → the failed step's kind,
 *   `not_dispatched`; a remote file that is blocked, too large or gone → `invalid_payload`;
 * - a {@link SlackRenderError} → `invalid_payload`; anything else → `unknown`, `maybe_sent`.
 *
 * @param secrets - redacted from the returned message (the bot token, the signing secret).
 */
export function classifyError(
  error: unknown,
  secrets: readonly (string | undefined)[] = [],
): ClassifiedFailure {
  const redact = (text: string) => redactTokens(text, secrets);
  const e = (error ?? {}) as SdkError;
  const message = redact(error instanceof Error ? error.message : String(error));
  if (error instanceof SlackRenderError) {
    return { kind: "invalid_payload", evidence: "not_dispatched", message };
  }
  if (error instanceof SlackRateLimitWithoutWaitError) return rateLimited(message);
  if (error instanceof SlackAnswerError)
    return { kind: "unknown", evidence: "maybe_sent", message };
  if (error instanceof SlackNetworkError) return classifyNetworkError(error, redact);
  if (error instanceof SlackUploadError) {
    const cause = error.cause as { reason?: unknown; status?: unknown; name?: unknown } | undefined;
    const media = cause?.name === "RemoteMediaError" || typeof cause?.reason === "string";
    if (media) {
      const status = typeof cause?.status === "number" ? cause.status : 0;
      const permanent =
        MEDIA_PERMANENT.has(String(cause?.reason)) ||
        (cause?.reason === "http_status" && status >= 400 && status < 500);
      return {
        kind: permanent ? "invalid_payload" : "transient",
        evidence: "not_dispatched",
        message,
        platformCode: `media_${String(cause?.reason)}`,
      };
    }
    // Before the share nothing is visible: the step's kind (transient when unknown), never
    // "maybe sent".
    const inner = classifyError(error.cause, secrets);
    return {
      ...inner,
      kind: inner.kind === "unknown" ? "transient" : inner.kind,
      evidence: "not_dispatched",
      message,
    };
  }
  switch (e.code) {
    case SDK_CODES.rateLimited: {
      const seconds = typeof e.retryAfter === "number" ? e.retryAfter : undefined;
      return rateLimited(message, seconds !== undefined ? Math.max(0, seconds * 1_000) : undefined);
    }
    case SDK_CODES.platform: {
      const code = typeof e.data?.error === "string" ? e.data.error : "unknown_error";
      return (
        platformFailure(code, message) ?? {
          // Slack said no with a code herald does not know: nothing was posted.
          kind: "unknown",
          evidence: "not_dispatched",
          message,
          platformCode: code,
        }
      );
    }
    case SDK_CODES.http: {
      const status = typeof e.statusCode === "number" ? e.statusCode : 0;
      const code = bodyCode(e.body);
      if (status >= 500 || status === 429 || !code) {
        return classifyHttpAnswer(
          { status, message, ...(code ? { platformCode: code } : {}) },
          { redact, rateLimitScope: "chat" },
        );
      }
      return (
        platformFailure(code, message, status) ??
        classifyHttpAnswer({ status, message, platformCode: code })
      );
    }
    case SDK_CODES.request: {
      const original = e.original;
      if (original instanceof SlackRateLimitWithoutWaitError)
        return classifyError(original, secrets);
      return classifyNetworkError(new SlackNetworkError("call", original ?? error), redact);
    }
  }
  return { kind: "unknown", evidence: "maybe_sent", message };
}
