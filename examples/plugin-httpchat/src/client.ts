/**
 * The HTTP chat API client (see README "The API"), its two error classes and `classifyError`:
 * the wire's `retry_after_ms` / `Retry-After` become `retryAfterMs` here and nowhere else.
 *
 * @module
 */
import {
  type ClassifiedFailure,
  classifyNetworkError,
  type DeliveryFailureKind,
  HeraldError,
  networkFailureOf,
  PlatformNetworkError,
  parseRetryAfter,
} from "@herald/plugin-sdk/channel-message";

/** A message as the API returns it. */
export type WireMessage = {
  id: string;
  chat_id: string;
  chat_type: "direct" | "group";
  thread_id?: string;
  reply_to?: string;
  text: string;
  author: { id: string; name?: string; bot: boolean };
  key?: string;
  metadata?: Record<string, unknown>;
  created_at: number;
};

type WireError = { error?: { code?: string; description?: string; retry_after_ms?: number } };

/** The API answered with an error; the name carries its code, e.g. `HttpChatApiError[rate_limited]`. */
export class HttpChatApiError extends HeraldError {
  readonly status: number;
  readonly errorCode: string;
  /** From `error.retry_after_ms` (ms), else the `Retry-After` header (seconds or a date). */
  readonly retryAfterMs: number | undefined;
  constructor(
    call: string,
    status: number,
    body: WireError | undefined,
    retryAfter: string | null,
  ) {
    const code = body?.error?.code ?? `http_${status}`;
    super("HERALD_HTTPCHAT_API", `${call} answered ${status} ${code}: ${body?.error?.description}`);
    this.name = `HttpChatApiError[${code}]`;
    this.status = status;
    this.errorCode = code;
    this.retryAfterMs = body?.error?.retry_after_ms ?? parseRetryAfter(retryAfter);
  }
}

/** The API never answered (refused: provably not sent; reset or timeout: maybe sent). */
export class HttpChatNetworkError extends PlatformNetworkError {
  constructor(call: string, cause: unknown) {
    super("HERALD_HTTPCHAT_NETWORK", "the HTTP chat API", call, networkFailureOf(cause), { cause });
  }
}

/** One API call: JSON in and out, bearer token, a timeout (ms). */
export type HttpChatCall = <T>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
) => Promise<T>;

/** Builds the client: `call("POST", "/v1/chats/c1/messages", { text })`. */
export function httpChatClient(baseUrl: string, token: string, timeoutMs: number): HttpChatCall {
  return async <T>(method: string, path: string, body?: unknown, signal?: AbortSignal) => {
    const call = `${method} ${path.replace(/\/[^/]+$/, "/…")}`;
    const signals = [AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])];
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.any(signals),
      });
      text = await res.text();
    } catch (error) {
      throw new HttpChatNetworkError(call, error);
    }
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok)
      throw new HttpChatApiError(
        call,
        res.status,
        json as WireError,
        res.headers.get("retry-after"),
      );
    return json as T;
  };
}

const KIND_BY_STATUS: Record<number, DeliveryFailureKind> = {
  400: "invalid_payload",
  401: "auth",
  403: "permission",
  404: "not_found",
  409: "conflict",
  413: "invalid_payload",
};

/** Kind × dispatch evidence of what a call threw (DESIGN §3); unknown errors are `maybe_sent`. */
export function classifyError(error: unknown): ClassifiedFailure {
  if (error instanceof HttpChatNetworkError) return classifyNetworkError(error);
  if (!(error instanceof HttpChatApiError))
    return { kind: "unknown", evidence: "maybe_sent", message: String(error) };
  const base = { message: error.message, platformCode: error.errorCode };
  if (error.status === 429) {
    const wait = error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {};
    return {
      ...base,
      kind: "rate_limit",
      evidence: "not_dispatched",
      rateLimitScope: "chat",
      ...wait,
    };
  }
  if (error.status >= 500) return { ...base, kind: "transient", evidence: "maybe_sent" };
  return { ...base, kind: KIND_BY_STATUS[error.status] ?? "unknown", evidence: "not_dispatched" };
}
