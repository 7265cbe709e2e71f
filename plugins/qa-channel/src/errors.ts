/**
 * QA channel errors and their classification (DESIGN §3 "two evidence axes"; STYLE: three kinds
 * of failure). {@link QaApiError}: the platform answered and said no (carries its own code and
 * parameters). {@link QaNetworkError}: no answer — refused (provably never dispatched) or reset /
 * timed out (maybe sent). `classifyError` converts them once into herald's terms; the wire's
 * `retry_after_ms` / `Retry-After` become `retryAfterMs` here and nowhere else.
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
  parseRetryAfter,
  platformErrors,
} from "@herald/plugin-sdk/channel-message";
import type { QaWireError } from "./wire.ts";

/**
 * The QA platform answered with an error. The name carries the platform's code, e.g.
 * `QaApiError[rate_limited]`, so logs are greppable.
 */
export class QaApiError extends HeraldError {
  /** HTTP status of the answer. */
  readonly status: number;
  /** The platform's error code, e.g. `message_not_found`, `rate_limited`. */
  readonly errorCode: string;
  readonly description: string;
  /** The platform's own parameters, as on the wire (`retry_after_ms`). */
  readonly parameters: { retry_after_ms?: number };
  /** The raw `Retry-After` header, when the answer had one. */
  readonly retryAfterHeader: string | undefined;
  /** The API method, e.g. `POST /chats/:chat_id/messages`. */
  readonly method: string;

  constructor(
    method: string,
    status: number,
    error: QaWireError,
    retryAfterHeader: string | undefined,
  ) {
    super("HERALD_QA_API", `${method} answered ${status} ${error.code}: ${error.description}`);
    this.name = `QaApiError[${error.code}]`;
    this.status = status;
    this.errorCode = error.code;
    this.description = error.description;
    this.parameters =
      error.retry_after_ms === undefined ? {} : { retry_after_ms: error.retry_after_ms };
    this.retryAfterHeader = retryAfterHeader;
    this.method = method;
  }
}

/** Why a request got no answer (the SDK's {@link NetworkFailureReason}). */
export type QaNetworkFailure = NetworkFailureReason;

/**
 * The QA platform never answered. `dispatched` says whether the request may have reached it
 * (false only when it provably never left: refused, DNS, connect timeout, no route, TLS); the
 * reason comes from the SDK's `networkFailureOf`.
 */
export const { NetworkError: QaNetworkError } = platformErrors("Qa", {
  code: "HERALD_QA",
  platform: "the QA platform",
});
/** An instance of {@link QaNetworkError} (the SDK's `PlatformNetworkError`). */
export type QaNetworkError = PlatformNetworkError;

/** A message the QA channel cannot render (empty text, nothing to send). */
export class QaRenderError extends HeraldError {
  constructor(message: string) {
    super("HERALD_QA_RENDER", message);
  }
}

const KIND_BY_STATUS: Record<number, DeliveryFailureKind> = {
  400: "invalid_payload",
  401: "auth",
  403: "permission",
  404: "not_found",
  409: "conflict",
  413: "invalid_payload",
  422: "invalid_payload",
};

/**
 * Classifies what a QA platform call threw:
 * - refused / DNS / connect timeout → `transient`, `not_dispatched` (retry blindly);
 * - reset / timeout / abort → `transient`, `maybe_sent` (reconcile before any replay);
 * - 429 → `rate_limit`, `not_dispatched`, `retryAfterMs` from `retry_after_ms` (ms) or else the
 *   `Retry-After` header (seconds), scope `chat`;
 * - 5xx → `transient`, `maybe_sent`; 401 `auth`, 403 `permission`, 404 `not_found`,
 *   400/413/422 `invalid_payload`, 409 `conflict` — all `not_dispatched`;
 * - anything else → `unknown`, `maybe_sent` (the safe default).
 */
export function classifyError(error: unknown): ClassifiedFailure {
  if (error instanceof QaNetworkError) return classifyNetworkError(error);
  if (error instanceof QaApiError) {
    const base = { message: error.message, platformCode: error.errorCode };
    if (error.status === 429) {
      const retryAfterMs =
        error.parameters.retry_after_ms ?? parseRetryAfter(error.retryAfterHeader);
      return {
        ...base,
        kind: "rate_limit",
        evidence: "not_dispatched",
        rateLimitScope: "chat",
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    }
    if (error.status >= 500) return { ...base, kind: "transient", evidence: "maybe_sent" };
    return {
      ...base,
      kind: KIND_BY_STATUS[error.status] ?? "unknown",
      evidence: "not_dispatched",
    };
  }
  return {
    kind: "unknown",
    evidence: "maybe_sent",
    message: error instanceof Error ? error.message : String(error),
  };
}
