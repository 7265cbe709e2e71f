/**
 * Google Chat errors and their classification (DESIGN §3 "two evidence axes"; STYLE: three kinds
 * of failure). {@link GoogleChatApiError}: the Chat API answered with an AIP-193 error
 * (`{ error: { code, message, status, details } }`) — it carries the HTTP status and the gRPC
 * status name (`RESOURCE_EXHAUSTED`, `INVALID_ARGUMENT`, …). {@link GoogleChatNetworkError}: no
 * answer — refused (provably never dispatched) or reset / timed out (maybe sent).
 * {@link classifyError} converts them once into herald's terms.
 *
 * Google Chat's 429 carries **no** `Retry-After` (PLATFORMS.md §8): the failure is a
 * `rate_limit` without `retryAfterMs`, scoped to the space (`rateLimitScope: "chat"`, C37) — or
 * to the whole project when the quota named is per project — so core pauses that bucket with
 * its backoff while other spaces keep flowing. A wait is honoured only where the answer names one
 * (an AIP-193 `google.rpc.RetryInfo` detail, or a `Retry-After` header).
 *
 * Source: https://developers.google.com/workspace/chat/limits, https://google.aip.dev/193
 *
 * @module
 */
import {
  type ClassifiedFailure,
  classifyHttpAnswer,
  classifyNetworkError,
  HeraldError,
  type NetworkFailure,
  networkFailureOf,
  PlatformApiError,
  PlatformNetworkError,
  parseRetryAfter,
  redactSecrets,
} from "@herald/plugin-sdk/channel-message";

/** An AIP-193 error body as the Chat API sends it. */
export type GoogleApiErrorBody = {
  code?: number;
  message?: string;
  /** gRPC status name, e.g. `RESOURCE_EXHAUSTED`. */
  status?: string;
  details?: Array<Record<string, unknown>>;
};

/**
 * The Chat API answered with an error. The name carries the gRPC status, e.g.
 * `GoogleChatApiError[RESOURCE_EXHAUSTED]`, so logs are greppable.
 */
export class GoogleChatApiError extends PlatformApiError {
  /** The gRPC status name (`INVALID_ARGUMENT`, `NOT_FOUND`…), `http_<status>` when absent. */
  readonly grpcStatus: string;

  /**
   * @param method - the API method, e.g. `spaces.messages.create`.
   * @param status - the HTTP status.
   * @param body - the `error` object of the answer.
   * @param retryAfterMs - the wait the answer named, in ms (RetryInfo or Retry-After), if any.
   */
  constructor(method: string, status: number, body: GoogleApiErrorBody, retryAfterMs?: number) {
    super("HERALD_GOOGLECHAT_API", "the Chat API", method, {
      status,
      platformCode: body.status ?? `http_${status}`,
      description: body.message,
      retryAfterMs,
    });
    this.grpcStatus = body.status ?? `http_${status}`;
  }

  /**
   * A 409 `ALREADY_EXISTS`: a create named a client-assigned message id (`client-…`) that is
   * already taken in the space (C41). On an idempotent create it proves the message exists.
   */
  get alreadyExists(): boolean {
    return this.status === 409 && this.grpcStatus === "ALREADY_EXISTS";
  }

  /** A 400 about the thread name (C35): the platform refused `thread.name`. */
  get invalidThread(): boolean {
    return this.status === 400 && /thread/i.test(this.message);
  }
}

/** The Chat API never answered (refused, reset, timed out). */
export class GoogleChatNetworkError extends PlatformNetworkError {
  /**
   * @param method - the API method, e.g. `spaces.messages.create`.
   * @param cause - what the request threw.
   */
  constructor(method: string, cause: unknown) {
    super("HERALD_GOOGLECHAT_NETWORK", "the Chat API", method, failureOf(cause), {
      cause: plainCause(cause),
    });
  }
}

/** A message the Google Chat channel cannot send as asked (bad target, nothing to send). */
export class GoogleChatRenderError extends HeraldError {
  constructor(message: string) {
    super("HERALD_GOOGLECHAT_RENDER", message);
  }
}

/**
 * The SDK's `networkFailureOf`, except that gaxios names its own timeout with the string code
 * `TimeoutError` (its `AbortSignal.timeout` aborts the fetch): a timeout, maybe sent.
 */
function failureOf(cause: unknown): NetworkFailure {
  if ((cause as { code?: unknown } | null)?.code === "TimeoutError") {
    return { reason: "timeout", evidence: "maybe_sent", code: "TimeoutError" };
  }
  return networkFailureOf(cause);
}

/** A gaxios error without its request config (which holds the `Authorization` header). */
function plainCause(error: unknown): unknown {
  const e = error as { cause?: unknown; code?: unknown; name?: unknown; message?: unknown };
  if (!e || typeof e !== "object") return error;
  const plain = new Error(String(e.message ?? "request failed"), { cause: e.cause });
  plain.name = typeof e.name === "string" ? e.name : "Error";
  if (typeof e.code === "string") (plain as Error & { code?: string }).code = e.code;
  return plain;
}

/** `3.5s` (a protobuf Duration in JSON) → 3500 ms. */
function durationMs(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return m ? Math.ceil(Number(m[1]) * 1_000) : undefined;
}

function retryInfoMs(details: GoogleApiErrorBody["details"]): number | undefined {
  for (const d of details ?? []) {
    if (String(d["@type"] ?? "").endsWith("google.rpc.RetryInfo")) {
      const ms = durationMs(d.retryDelay);
      if (ms !== undefined) return ms;
    }
  }
  return undefined;
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === "function")
    return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * What a Chat API call threw, as one of our errors: a gaxios error with a response becomes a
 * {@link GoogleChatApiError} (an OAuth token-endpoint refusal, `{ error: "invalid_grant" }`, a
 * 401 `UNAUTHENTICATED` one), one without a response a {@link GoogleChatNetworkError}; our own
 * errors pass through.
 */
export function toGoogleChatError(method: string, error: unknown): Error {
  if (error instanceof HeraldError) return error;
  const e = error as {
    status?: number;
    response?: { status?: number; data?: unknown; headers?: unknown };
  } | null;
  const status = e?.response?.status ?? e?.status;
  if (e && typeof status === "number" && e.response) {
    const oauth = oauthErrorOf(e.response.data);
    if (oauth && status !== 429 && status < 500) {
      // The OAuth token endpoint refused the credentials (RFC 6749 §5.2: `invalid_grant` for a
      // revoked or unknown key, a skewed clock): nothing reached the Chat API, and no retry
      // helps — an `auth` failure, whatever HTTP status the token endpoint chose.
      return new GoogleChatApiError(`${method} (access token)`, 401, {
        status: "UNAUTHENTICATED",
        message: `the OAuth token endpoint refused the credentials: ${oauth}`,
      });
    }
    const data = e.response.data as { error?: GoogleApiErrorBody } | string | undefined;
    const body: GoogleApiErrorBody =
      typeof data === "object" && data?.error
        ? data.error
        : typeof data === "string"
          ? { message: data.slice(0, 200) }
          : {};
    const wait =
      retryInfoMs(body.details) ?? parseRetryAfter(headerOf(e.response.headers, "retry-after"));
    return new GoogleChatApiError(method, status, body, wait);
  }
  if (isGaxiosError(error)) return new GoogleChatNetworkError(method, error);
  return error instanceof Error ? error : new Error(String(error));
}

/** `error: error_description` of an OAuth 2.0 token-endpoint error body, else undefined. */
function oauthErrorOf(data: unknown): string | undefined {
  const d = data as { error?: unknown; error_description?: unknown } | null;
  if (!d || typeof d !== "object" || typeof d.error !== "string") return undefined;
  const description = typeof d.error_description === "string" ? `: ${d.error_description}` : "";
  return `${d.error}${description}`.slice(0, 300);
}

/** A gaxios error (the client's), by shape: gaxios may be loaded twice. */
function isGaxiosError(error: unknown): boolean {
  const e = error as { name?: unknown; config?: unknown } | null;
  return !!e && typeof e === "object" && (e.name === "GaxiosError" || "config" in e);
}

/**
 * Classifies what a send, edit or delete threw (PLATFORMS.md §3c): 400 `invalid_payload`, 401
 * `auth`, 403 `permission`, 404 `not_found`, 409 `conflict` (all `not_dispatched`); 429
 * `rate_limit`, `not_dispatched`, paused on the space (or the project); 5xx `transient`,
 * `maybe_sent`; no answer: `transient` with the network evidence; anything else `unknown`,
 * `maybe_sent`.
 *
 * @param secrets - credentials to redact from the message (access token, key material).
 */
export function classifyError(error: unknown, secrets: readonly string[] = []): ClassifiedFailure {
  const redact = (text: string) => (secrets.length ? redactSecrets(text, secrets) : text);
  const e = error instanceof HeraldError ? error : toGoogleChatError("a Chat API call", error);
  if (e instanceof GoogleChatNetworkError) return classifyNetworkError(e, redact);
  if (e instanceof GoogleChatApiError) {
    const perProject = e.status === 429 && /per project|per_project/i.test(e.message);
    return classifyHttpAnswer(e, {
      redact,
      kinds: { 400: "invalid_payload", 409: "conflict", 412: "invalid_payload" },
      ...(e.status === 429 ? { rateLimitScope: perProject ? "account" : "chat" } : {}),
    });
  }
  if (e instanceof GoogleChatRenderError) {
    return { kind: "invalid_payload", evidence: "not_dispatched", message: redact(e.message) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "unknown", evidence: "maybe_sent", message: redact(message) };
}
