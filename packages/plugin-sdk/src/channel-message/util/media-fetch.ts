/**
 * The guarded remote-media fetch (DESIGN §11): everything herald downloads on a user's behalf —
 * an attachment's `url` that a platform cannot fetch itself and must be uploaded (Slack files,
 * Matrix media) — goes through {@link fetchRemoteMedia}. It refuses loopback, link-local and
 * private ranges (see `isPublicAddress`) unless configured otherwise, checks the addresses the
 * socket really connects to (not just the host name: a public-looking name that resolves to
 * `127.0.0.1` is refused) on every redirect hop, caps the size and bounds the time.
 *
 * @module
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { HeraldError } from "@herald/core";
import {
  guardedLookup,
  type HostResolver,
  isPublicAddress,
  systemResolver,
} from "./address-guard.ts";

/** Why a remote media fetch failed. */
export type RemoteMediaFailure =
  /** Not an absolute `http:` / `https:` URL. */
  | "bad_url"
  /** The host is, or resolves to, a refused address (loopback, private, link-local…). */
  | "blocked_address"
  /** Larger than `maxBytes` (by `Content-Length` or by what arrived). */
  | "too_large"
  /** More than `maxRedirects` redirects. */
  | "too_many_redirects"
  /** The server answered a status other than 2xx (or a redirect without `Location`). */
  | "http_status"
  /** `timeoutMs` passed before the whole body arrived. */
  | "timeout"
  /** The caller's signal aborted. */
  | "aborted"
  /** DNS failure, refused or reset connection. */
  | "network";

/**
 * A remote media fetch failed. The name carries the reason (`RemoteMediaError[blocked_address]`);
 * `url` is the hop that failed (after redirects, not the one first asked for).
 */
export class RemoteMediaError extends HeraldError {
  readonly reason: RemoteMediaFailure;
  readonly url: string;
  /** The HTTP status, for `http_status`. */
  readonly status: number | undefined;

  constructor(
    reason: RemoteMediaFailure,
    url: string,
    detail: string,
    options?: ErrorOptions & { status?: number },
  ) {
    super("HERALD_REMOTE_MEDIA", `fetching ${url}: ${detail}`, options);
    this.name = `RemoteMediaError[${reason}]`;
    this.reason = reason;
    this.url = url;
    this.status = options?.status;
  }
}

/** Options of {@link fetchRemoteMedia}. */
export type RemoteMediaOptions = {
  /** Largest body accepted, in bytes. @defaultValue 20 MiB (20_971_520) */
  maxBytes?: number;
  /** Time for the whole fetch, redirects and body included, in ms. @defaultValue 30_000 */
  timeoutMs?: number;
  /** Redirects followed at most. @defaultValue 5 */
  maxRedirects?: number;
  /**
   * Allow every address, private and loopback included (a gateway inside a private network
   * that fetches from its own media server). @defaultValue false
   */
  allowPrivateNetworks?: boolean;
  /**
   * Host names (lower case, no port) that may resolve to private addresses — an internal media
   * host. A redirect elsewhere is judged on its own. @defaultValue []
   */
  allowedHosts?: readonly string[];
  signal?: AbortSignal;
  /** Resolves host names (tests map a name to 127.0.0.1). @defaultValue the system resolver */
  resolver?: HostResolver;
  /** Request headers (no cookies or credentials are sent unless given here). */
  headers?: Record<string, string>;
};

/** A downloaded media file. */
export type RemoteMedia = {
  bytes: Uint8Array;
  /** The `Content-Type` header, when the server sent one. */
  contentType: string | undefined;
  /** The URL the body came from (after redirects). */
  url: string;
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Downloads `url` under the guard: public addresses only (unless allowed), at most `maxBytes`,
 * within `timeoutMs`, following at most `maxRedirects` redirects (each hop checked again).
 *
 * @throws {@link RemoteMediaError} with the reason: `bad_url`, `blocked_address`, `too_large`,
 *   `too_many_redirects`, `http_status`, `timeout`, `aborted`, `network`.
 * @example
 * const media = await fetchRemoteMedia(attachment.url, { maxBytes: 50 * 1024 * 1024 });
 * await client.uploadFile(media.bytes, media.contentType);
 */
export async function fetchRemoteMedia(
  url: string,
  options: RemoteMediaOptions = {},
): Promise<RemoteMedia> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const maxRedirects = options.maxRedirects ?? 5;
  let current = url;
  for (let hop = 0; ; hop++) {
    const target = parseUrl(current);
    checkLiteral(target, options);
    let response: IncomingMessage;
    try {
      response = await get(target, signal, options);
    } catch (error) {
      throw failureOf(error, current, timeout, options.signal);
    }
    const status = response.statusCode ?? 0;
    if (REDIRECTS.has(status) && response.headers.location) {
      response.destroy();
      if (hop >= maxRedirects) {
        throw new RemoteMediaError(
          "too_many_redirects",
          current,
          `more than ${maxRedirects} redirects`,
        );
      }
      current = new URL(response.headers.location, target).toString();
      continue;
    }
    if (status < 200 || status > 299) {
      response.destroy();
      throw new RemoteMediaError("http_status", current, `answered HTTP ${status}`, { status });
    }
    try {
      const bytes = await readCapped(response, options.maxBytes ?? 20 * 1024 * 1024, current);
      return { bytes, contentType: response.headers["content-type"], url: current };
    } catch (error) {
      throw failureOf(error, current, timeout, options.signal);
    }
  }
}

function parseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RemoteMediaError("bad_url", url, "not an absolute URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new RemoteMediaError(
      "bad_url",
      url,
      `protocol ${parsed.protocol} is not http: or https:`,
    );
  }
  return parsed;
}

function hostAllowed(hostname: string, address: string, options: RemoteMediaOptions): boolean {
  if (options.allowPrivateNetworks) return true;
  if (options.allowedHosts?.includes(hostname.toLowerCase())) return true;
  return isPublicAddress(address);
}

function blocked(url: string, hostname: string, address: string): RemoteMediaError {
  const via = hostname === address ? "" : ` (${hostname} resolves to it)`;
  return new RemoteMediaError(
    "blocked_address",
    url,
    `${address} is not a public address${via}; set allowPrivateNetworks or allowedHosts to fetch from it`,
  );
}

/** IP literals never reach `lookup`, so they are checked here. */
function checkLiteral(target: URL, options: RemoteMediaOptions): void {
  const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) && !hostAllowed(host, host, options)) {
    throw blocked(target.toString(), host, host);
  }
}

function get(
  target: URL,
  signal: AbortSignal,
  options: RemoteMediaOptions,
): Promise<IncomingMessage> {
  const lookup = guardedLookup(
    options.resolver ?? systemResolver,
    (hostname, address) => hostAllowed(hostname, address, options),
    (hostname, address) => blocked(target.toString(), hostname, address),
  );
  const request = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(target, {
      method: "GET",
      headers: { accept: "*/*", ...options.headers },
      lookup: lookup as never,
      signal,
      agent: false,
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end();
  });
}

async function readCapped(
  response: IncomingMessage,
  maxBytes: number,
  url: string,
): Promise<Uint8Array> {
  const declared = Number(response.headers["content-length"]);
  const tooLarge = () => new RemoteMediaError("too_large", url, `larger than ${maxBytes} bytes`);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function failureOf(
  error: unknown,
  url: string,
  timeout: AbortSignal,
  caller: AbortSignal | undefined,
): RemoteMediaError {
  if (error instanceof RemoteMediaError) return error;
  if (timeout.aborted) return new RemoteMediaError("timeout", url, "timed out", { cause: error });
  if (caller?.aborted) return new RemoteMediaError("aborted", url, "aborted", { cause: error });
  const code = (error as { code?: unknown }).code;
  return new RemoteMediaError(
    "network",
    url,
    `no answer (${typeof code === "string" ? code : String(error)})`,
    {
      cause: error,
    },
  );
}
