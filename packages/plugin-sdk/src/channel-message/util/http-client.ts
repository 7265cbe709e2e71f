/**
 * The HTTP client every plugin of a JSON-over-HTTP platform would otherwise hand-write: one
 * call is `"METHOD /path"` with an optional JSON body, a per-call timeout combined with the
 * caller's `AbortSignal`, and two ways to fail — the platform's error answer becomes the
 * plugin's `PlatformApiError` subclass (its code, description and wait: `Retry-After` from the
 * body **or** the header), no answer becomes its `PlatformNetworkError` subclass with the
 * dispatch evidence of `networkFailureOf` (refused: `not_dispatched`; reset, timeout:
 * `maybe_sent`). Wire names stay in the plugin's `readError`; past it only herald units exist.
 *
 * @module
 */
import { redactSecrets } from "@herald/core";
import type { PlatformAnswer } from "./api-error.ts";
import type { PlatformApiErrorClass, PlatformNetworkErrorClass } from "./platform-errors.ts";
import { parseRetryAfter } from "./retry-after.ts";

/** What a platform's error body said, in herald's units (read by {@link HttpClientOptions.readError}). */
export type HttpErrorBody = Partial<
  Pick<PlatformAnswer, "platformCode" | "description" | "retryAfterMs">
>;

/** Options of {@link createHttpClient}. */
export type HttpClientOptions = {
  /** The API root, e.g. `https://api.acme.chat` (no trailing slash needed). */
  baseUrl: string;
  /** Headers of every call, e.g. `{ authorization: "Bearer …" }`. */
  headers?: Record<string, string>;
  /**
   * Longest a call may take, in ms, connect to last body byte; past it the call fails with the
   * network error, reason `timeout`, `maybe_sent`. Declare the same value as
   * `capabilities.delivery.requestTimeoutMs`, and make it longer than any long-poll wait.
   * @defaultValue 10_000
   */
  timeoutMs?: number;
  /** The plugin's error classes, from `platformErrors`. */
  errors: { ApiError: PlatformApiErrorClass; NetworkError: PlatformNetworkErrorClass };
  /**
   * Reads the platform's own code, description and wait from a JSON error body (the only place
   * wire names such as `retry_after` appear). A wait it returns wins over a `Retry-After` header;
   * without one the header is read (delay-seconds or an HTTP date).
   * @defaultValue nothing read: the code is `http_<status>`, the wait is the header's
   */
  readError?: (body: unknown) => HttpErrorBody;
  /** Replaced by `[redacted]` in an error description that quotes them back (a bot token). */
  secrets?: readonly string[];
  /**
   * Sent as `authorization: Bearer <token>` with every call, and redacted like `secrets`.
   * @defaultValue none (put other schemes in `headers`)
   */
  bearerToken?: string;
  /** @defaultValue globalThis.fetch */
  fetch?: typeof fetch;
  /** Epoch ms a `Retry-After` HTTP date is measured from. @defaultValue Date.now */
  clock?: () => number;
};

/** One call's extras. */
export type HttpRequest = {
  /** Sent as JSON (`content-type: application/json`). */
  body?: unknown;
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Aborts the call (the network error then has reason `aborted`, `maybe_sent`). */
  signal?: AbortSignal | undefined;
  /** This call's timeout in ms (a long poll's wait plus a margin). @defaultValue the client's */
  timeoutMs?: number;
};

/**
 * Calls the API: `call` is `"METHOD /path"`, e.g. `"POST /v1/chats/c1/messages"` (also the
 * errors' `call`).
 * @returns the parsed JSON answer (`undefined` for an empty body).
 * @throws the plugin's ApiError for an error status; its NetworkError when no (readable)
 *   answer came — refused, reset, timed out, aborted, or a success body that is not JSON.
 */
export type HttpClient = <T = unknown>(call: string, request?: HttpRequest) => Promise<T>;

/**
 * Creates an HTTP client for one account.
 *
 * @throws TypeError when `timeoutMs` is not a positive number or `baseUrl` is not a URL.
 * @example
 * const call = createHttpClient({
 *   baseUrl: config.baseUrl,
 *   headers: { authorization: `Bearer ${token}` },
 *   errors: { ApiError: AcmeApiError, NetworkError: AcmeNetworkError },
 *   readError: (b) => ({ platformCode: b?.error?.code, retryAfterMs: b?.error?.retry_after_ms }),
 *   secrets: [token],
 * });
 * const { message } = await call<{ message: Wire }>("POST /v1/messages", { body, signal });
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!(timeoutMs > 0)) {
    throw new TypeError(`createHttpClient: timeoutMs must be a positive number, got ${timeoutMs}`);
  }
  const base = new URL(options.baseUrl).href.replace(/\/$/, "");
  const doFetch = options.fetch ?? fetch;
  const clock = options.clock ?? Date.now;
  const { ApiError, NetworkError } = options.errors;
  const { bearerToken } = options;
  const secrets = [...(options.secrets ?? []), ...(bearerToken ? [bearerToken] : [])];
  const auth = bearerToken ? { authorization: `Bearer ${bearerToken}` } : {};
  const redact = (text: string | undefined) =>
    text && secrets.length ? redactSecrets(text, secrets) : text;

  return async <T>(call: string, request: HttpRequest = {}): Promise<T> => {
    const [method = "GET", path = "/"] = call.split(" ");
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(request.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const timeout = AbortSignal.timeout(request.timeoutMs ?? timeoutMs);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, {
        method,
        headers: {
          ...options.headers,
          ...auth,
          ...(request.body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal,
      });
      text = await res.text();
    } catch (error) {
      throw new NetworkError(call, error);
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch (error) {
      // A success we cannot read may still have been applied: `bad_response`, `maybe_sent`.
      if (res.ok) throw new NetworkError(call, error);
    }
    if (res.ok) return json as T;
    const read = json === undefined ? {} : (options.readError?.(json) ?? {});
    throw new ApiError(call, {
      status: res.status,
      platformCode: read.platformCode,
      description: redact(read.description),
      retryAfterMs: read.retryAfterMs ?? parseRetryAfter(res.headers.get("retry-after"), clock()),
    });
  };
}
