/**
 * Network error → dispatch evidence, the one copy every plugin uses (DESIGN §3 "two evidence
 * axes"; STYLE: "the network outcome is unknown"). A request that got no answer either provably
 * never left (connection refused, DNS failure, connect timeout, no route, TLS handshake failed:
 * `not_dispatched`, safe to retry blindly) or may have reached the platform (reset, timeout,
 * abort after the request was written: `maybe_sent`, reconcile before any replay).
 *
 * The low-level code is found by walking the `cause` chain (Node's fetch wraps undici's error
 * in `TypeError: fetch failed`), the `errors` of an `AggregateError` (happy eyeballs tries every
 * address) and grammY's `HttpError.error`.
 *
 * @module
 */
import { type ClassifiedFailure, type DispatchEvidence, HeraldError } from "@herald/core";

/** Why a request got no answer. */
export type NetworkFailureReason =
  /** `ECONNREFUSED`: nothing listens there. */
  | "refused"
  /** `ENOTFOUND`, `EAI_AGAIN`, `EAI_NONAME`, `EAI_FAIL`, `EAI_NODATA`. */
  | "dns"
  /** `UND_ERR_CONNECT_TIMEOUT`: the TCP/TLS connect did not finish in time. */
  | "connect_timeout"
  /** `ENETUNREACH`, `EHOSTUNREACH`, `ENETDOWN`, `EHOSTDOWN`, `EADDRNOTAVAIL`. */
  | "unreachable"
  /** The TLS handshake failed (certificate errors, `ERR_SSL_*`, `ERR_TLS_*`): no request was written. */
  | "tls"
  /** `ECONNRESET`, `EPIPE`, `UND_ERR_SOCKET`, `UND_ERR_CLOSED`, `UND_ERR_DESTROYED`, `ECONNABORTED`. */
  | "reset"
  /** `ETIMEDOUT`, `UND_ERR_HEADERS_TIMEOUT`, `UND_ERR_BODY_TIMEOUT`, a `TimeoutError`, grammY's "timed out after". */
  | "timeout"
  /** `UND_ERR_ABORTED`, an `AbortError`: the caller gave up. */
  | "aborted"
  /** The answer could not be read (`UND_ERR_RES_CONTENT_LENGTH_MISMATCH`, a body that is not JSON). */
  | "bad_response"
  | "other";

/** What {@link networkFailureOf} found. */
export type NetworkFailure = {
  reason: NetworkFailureReason;
  /** `not_dispatched` only when the request provably never left. */
  evidence: DispatchEvidence;
  /** The low-level code (`ECONNREFUSED`, `UND_ERR_SOCKET`…), when there was one. */
  code?: string;
};

const REASON_BY_CODE: Readonly<Record<string, NetworkFailureReason>> = {
  ECONNREFUSED: "refused",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EAI_NONAME: "dns",
  EAI_FAIL: "dns",
  EAI_NODATA: "dns",
  UND_ERR_CONNECT_TIMEOUT: "connect_timeout",
  ENETUNREACH: "unreachable",
  EHOSTUNREACH: "unreachable",
  ENETDOWN: "unreachable",
  EHOSTDOWN: "unreachable",
  EADDRNOTAVAIL: "unreachable",
  CERT_HAS_EXPIRED: "tls",
  DEPTH_ZERO_SELF_SIGNED_CERT: "tls",
  SELF_SIGNED_CERT_IN_CHAIN: "tls",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "tls",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "tls",
  ERR_TLS_CERT_ALTNAME_INVALID: "tls",
  UND_ERR_PRX_TLS: "tls",
  ECONNRESET: "reset",
  EPIPE: "reset",
  ECONNABORTED: "reset",
  UND_ERR_SOCKET: "reset",
  UND_ERR_CLOSED: "reset",
  UND_ERR_DESTROYED: "reset",
  ETIMEDOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  UND_ERR_ABORTED: "aborted",
  ABORT_ERR: "aborted",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "bad_response",
  UND_ERR_HEADERS_OVERFLOW: "bad_response",
  HPE_INVALID_CONSTANT: "bad_response",
};

const NOT_DISPATCHED: ReadonlySet<NetworkFailureReason> = new Set([
  "refused",
  "dns",
  "connect_timeout",
  "unreachable",
  "tls",
]);

type ErrorLike = {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
  error?: unknown;
};

/** Every error in the chain, outermost first (cause, AggregateError.errors, grammY's `.error`). */
function chainOf(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  const queue: unknown[] = [error];
  const seen = new Set<unknown>();
  while (queue.length > 0 && out.length < 32) {
    const e = queue.shift();
    if (e === null || typeof e !== "object" || seen.has(e)) continue;
    seen.add(e);
    const like = e as ErrorLike;
    out.push(like);
    queue.push(like.cause, like.error);
    if (Array.isArray(like.errors)) queue.push(...like.errors);
  }
  return out;
}

function reasonOfCode(code: string): NetworkFailureReason | undefined {
  const known = Object.hasOwn(REASON_BY_CODE, code) ? REASON_BY_CODE[code] : undefined;
  if (known) return known;
  if (code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_")) return "tls";
  return undefined;
}

/**
 * Classifies what a request threw when it got no answer: the reason, the low-level code and the
 * dispatch evidence. A recognised code anywhere in the `cause` chain wins over names
 * (`TimeoutError`, `AbortError`, `SyntaxError`) and messages; anything unrecognised is
 * `other` / `maybe_sent` (the safe default).
 *
 * @example
 * try { await fetch(url) } catch (e) { networkFailureOf(e) } // { reason: "refused", evidence: "not_dispatched", code: "ECONNREFUSED" }
 */
export function networkFailureOf(error: unknown): NetworkFailure {
  const chain = chainOf(error);
  let reason: NetworkFailureReason | undefined;
  let code: string | undefined;
  for (const e of chain) {
    if (typeof e.code !== "string") continue;
    const r = reasonOfCode(e.code);
    if (r) {
      reason = r;
      code = e.code;
      break;
    }
    code ??= e.code;
  }
  reason ??= reasonOfNames(chain);
  return {
    reason,
    evidence: NOT_DISPATCHED.has(reason) ? "not_dispatched" : "maybe_sent",
    ...(code !== undefined ? { code } : {}),
  };
}

function reasonOfNames(chain: readonly ErrorLike[]): NetworkFailureReason {
  const names = chain.map((e) => e.name);
  if (names.includes("TimeoutError")) return "timeout";
  if (chain.some((e) => typeof e.message === "string" && /timed out after/i.test(e.message))) {
    return "timeout";
  }
  if (names.includes("AbortError")) return "aborted";
  if (names.includes("SyntaxError")) return "bad_response";
  return "other";
}

/**
 * "The platform never answered", the base of every plugin's network error
 * (`TelegramNetworkError`, `QaNetworkError`…). The name carries the reason
 * (`TelegramNetworkError[refused]`) so logs are greppable; the original error is the `cause`.
 *
 * @example
 * export class AcmeNetworkError extends PlatformNetworkError {
 *   constructor(method: string, error: unknown) {
 *     super("HERALD_ACME_NETWORK", "the Acme API", method, networkFailureOf(error), { cause: error });
 *   }
 * }
 */
export class PlatformNetworkError extends HeraldError {
  /** The API method, e.g. `sendMessage`. */
  readonly method: string;
  readonly reason: NetworkFailureReason;
  /** False only when the request provably never left. */
  readonly dispatched: boolean;
  readonly evidence: DispatchEvidence;
  /** The low-level code (`ECONNREFUSED`, `UND_ERR_SOCKET`…), when there was one. */
  readonly causeCode: string | undefined;

  /**
   * @param code - herald error code, e.g. `HERALD_TELEGRAM_NETWORK`.
   * @param platform - how the message names the platform, e.g. `the Bot API`.
   */
  constructor(
    code: string,
    platform: string,
    method: string,
    failure: NetworkFailure,
    options?: ErrorOptions,
  ) {
    super(
      code,
      `${method}: no answer from ${platform} (${failure.reason}${failure.code ? `, ${failure.code}` : ""})`,
      options,
    );
    this.name = `${new.target.name}[${failure.reason}]`;
    this.method = method;
    this.reason = failure.reason;
    this.evidence = failure.evidence;
    this.dispatched = failure.evidence !== "not_dispatched";
    this.causeCode = failure.code;
  }
}

/**
 * A network error as a delivery failure: `transient` with the error's evidence, its reason as
 * `platformCode`, its message passed through `redact` (a URL in a cause may hold a token).
 */
export function classifyNetworkError(
  error: PlatformNetworkError,
  redact: (text: string) => string = (text) => text,
): ClassifiedFailure {
  return {
    kind: "transient",
    evidence: error.evidence,
    message: redact(error.message),
    platformCode: error.reason,
  };
}
