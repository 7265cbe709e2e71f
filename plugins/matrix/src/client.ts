/**
 * The Client-Server API client: matrix-js-sdk's `MatrixClient`, pointed at the configured
 * homeserver, and the one edge of herald's own every call goes through ({@link MatrixHttp}).
 *
 * Why `new MatrixClient(...)` and its HTTP layer (`client.http.authedRequest`) rather than
 * `createClient()` + `sendEvent()` (docs/channels/matrix.md, "Why the HTTP layer"):
 * - `createClient` installs a `MatrixScheduler` that retries 429 and 5xx up to 4 times behind
 *   the durable queue's back (PLATFORMS.md §1); `new MatrixClient` has none, and nothing here
 *   retries — the queue is the one place that does;
 * - `sendEvent` takes no abort signal (a shutdown could not cancel it), builds local-echo
 *   events for rooms it never synced, and logs every failure at error level; the HTTP layer is
 *   the same code it ends in (`PUT /rooms/{roomId}/send/{type}/{txnId}`), with a signal;
 * - the SDK's `ConnectionError` drops the fetch error (only its message survives), so the
 *   evidence "refused — never dispatched" vs "reset — maybe sent" would be lost: the fetch
 *   passed to the SDK records the original error, and {@link MatrixHttp} rethrows it as a
 *   {@link MatrixNetworkError} with that cause.
 *
 * matrix-js-sdk 43 is ESM only and large (≈14 MB on disk, ≈1 s to import on the reference
 * machine); it is imported once per process.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { parseRetryAfter } from "@herald/plugin-sdk/channel-message";
import { MatrixClient, MatrixError, Method } from "matrix-js-sdk";
import { MatrixApiError, type MatrixErrorBody, MatrixNetworkError } from "./errors.ts";

/** Options of {@link createMatrixHttp}. */
export type MatrixHttpOptions = {
  /** Homeserver base URL, e.g. `https://matrix.example.org` (no `/_matrix` suffix). */
  homeserverUrl: string;
  accessToken: string;
  /** The bot's user id, when known (before `/whoami`, it may be absent). */
  userId?: string;
  /** The device id of the access token (txnIds are scoped to it). */
  deviceId?: string;
  /** Per-request timeout in ms, unless a call passes its own. @defaultValue 30_000 */
  timeoutMs?: number;
};

/** What one call passes. */
export type MatrixCallOptions = {
  query?: Record<string, string | undefined>;
  body?: Record<string, unknown>;
  signal?: AbortSignal | undefined;
  /** Overrides the client's timeout, in ms (a long `/sync` poll needs more). */
  timeoutMs?: number;
  /** The path prefix. @defaultValue "/_matrix/client/v3" */
  prefix?: string;
};

/** The SDK's `Logger` (not exported by name from its entry point). */
type Logger = NonNullable<ConstructorParameters<typeof MatrixClient>[0]["logger"]>;

/** The SDK's logger interface, silenced: herald logs transitions itself (never request URLs). */
const quiet: Logger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  getChild: () => quiet,
};

/** Where the fetch of the current call parks the error it threw (see the module docs). */
const lastFetchError = new AsyncLocalStorage<{ error?: unknown }>();

async function recordingFetch(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (error) {
    const slot = lastFetchError.getStore();
    if (slot) slot.error = error;
    throw error;
  }
}

/**
 * The Matrix client of one account and the single door to it. Every method maps failures to
 * {@link MatrixApiError} / {@link MatrixNetworkError}.
 */
export class MatrixHttp {
  /** The SDK client (no scheduler, no store, no crypto). */
  readonly client: MatrixClient;
  readonly #timeoutMs: number;

  constructor(options: MatrixHttpOptions) {
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.client = new MatrixClient({
      baseUrl: options.homeserverUrl,
      accessToken: options.accessToken,
      ...(options.userId ? { userId: options.userId } : {}),
      ...(options.deviceId ? { deviceId: options.deviceId } : {}),
      fetchFn: recordingFetch as typeof fetch,
      logger: quiet,
      // Not a real client session: never send read receipts or presence on its own.
      timelineSupport: false,
    });
  }

  /**
   * One authenticated request to `/_matrix/client/v3{path}`.
   *
   * @param call - names the request in errors, with placeholders, e.g.
   *   `PUT /rooms/{roomId}/send/m.room.message/{txnId}` (ids are not logged).
   * @throws MatrixApiError when the homeserver answered an error.
   * @throws MatrixNetworkError when it did not answer (timeout, reset, refused, aborted).
   */
  async request<T>(
    method: "GET" | "PUT" | "POST" | "DELETE",
    path: string,
    call: string,
    options: MatrixCallOptions = {},
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query[k] = v;
    const slot: { error?: unknown } = {};
    try {
      return await lastFetchError.run(slot, () =>
        this.client.http.authedRequest<T>(METHOD[method], path, query, options.body, {
          abortSignal: signal,
          inhibitLogoutEmit: true,
          priority: "auto",
          ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
        }),
      );
    } catch (error) {
      if (error instanceof MatrixApiError || error instanceof MatrixNetworkError) throw error;
      if (error instanceof MatrixError) throw apiErrorOf(call, error);
      const httpStatus = (error as { httpStatus?: unknown }).httpStatus;
      if (typeof httpStatus === "number") {
        // HTTPError: an answer that is not Matrix JSON (a proxy's HTML 502).
        const headers = (error as { httpHeaders?: Headers }).httpHeaders;
        throw new MatrixApiError(
          call,
          httpStatus,
          {},
          parseRetryAfter(headers?.get("retry-after")),
          { cause: error },
        );
      }
      if (timeout.aborted && !options.signal?.aborted) {
        throw new MatrixNetworkError(
          call,
          new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"),
        );
      }
      throw new MatrixNetworkError(call, slot.error ?? error);
    }
  }
  /**
   * Uploads one file to the content repository (`POST /_matrix/media/v3/upload`, spec
   * "Content repository"), with the SDK's `uploadContent`. `file` is a `Blob` (from
   * `fs.openAsBlob`: read from disk as it is sent, never buffered whole).
   *
   * @returns the `mxc://` URI of the upload.
   * @throws MatrixApiError when the homeserver refused it (`M_TOO_LARGE` 413, quota).
   * @throws MatrixNetworkError when it did not answer (timeout, reset, aborted).
   */
  async upload(
    file: Blob,
    options: { name: string; mimeType?: string | undefined; signal?: AbortSignal | undefined },
  ): Promise<string> {
    const call = "POST /_matrix/media/v3/upload";
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const abortController = new AbortController();
    const onAbort = () => abortController.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const slot: { error?: unknown } = {};
    try {
      const answer = await lastFetchError.run(slot, () =>
        this.client.uploadContent(file, {
          name: options.name,
          ...(options.mimeType !== undefined ? { type: options.mimeType } : {}),
          abortController,
        }),
      );
      const uri = (answer as { content_uri?: unknown }).content_uri;
      if (typeof uri !== "string" || !uri.startsWith("mxc://")) {
        throw new MatrixNetworkError(call, new SyntaxError(`${call} answered without content_uri`));
      }
      return uri;
    } catch (error) {
      if (error instanceof MatrixApiError || error instanceof MatrixNetworkError) throw error;
      if (error instanceof MatrixError) throw apiErrorOf(call, error);
      const httpStatus = (error as { httpStatus?: unknown }).httpStatus;
      if (typeof httpStatus === "number")
        throw new MatrixApiError(call, httpStatus, {}, undefined, { cause: error });
      throw new MatrixNetworkError(call, slot.error ?? error);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}

const METHOD = { GET: Method.Get, PUT: Method.Put, POST: Method.Post, DELETE: Method.Delete };

function apiErrorOf(call: string, error: MatrixError): MatrixApiError {
  const body = (error.data ?? {}) as MatrixErrorBody;
  const header = parseRetryAfter(error.httpHeaders?.get("retry-after"));
  const bodyMs =
    typeof body.retry_after_ms === "number" && body.retry_after_ms >= 0
      ? body.retry_after_ms
      : undefined;
  return new MatrixApiError(call, error.httpStatus ?? 400, body, header ?? bodyMs, {
    cause: error,
  });
}

/** `encodeURIComponent` for one path segment (room ids carry `!` and `:`, event ids `$`). */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
