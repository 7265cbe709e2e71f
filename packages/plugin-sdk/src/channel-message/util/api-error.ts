/**
 * "The platform answered, and said no" — the counterpart of `PlatformNetworkError`, and the
 * classification every HTTP platform shares (DESIGN §3 "two evidence axes"): an error answer is
 * `not_dispatched` (the platform refused it) unless it is a 5xx (`maybe_sent`: it may have
 * stored the message before failing), a 429 is `rate_limit` with its wait, and the status picks
 * the kind. Platforms with their own meanings pass `kinds` (Telegram: 404 is a wrong token).
 *
 * @module
 */
import {
  type ClassifiedFailure,
  type DeliveryFailure,
  type DeliveryFailureKind,
  HeraldError,
} from "@herald/core";
import { classifyNetworkError, PlatformNetworkError } from "./network.ts";

/** What an HTTP error answer said, in herald's units. */
export type PlatformAnswer = {
  /** HTTP status. */
  status: number;
  /** The platform's own error code (`rate_limited`, `M_FORBIDDEN`); `http_<status>` when none. */
  platformCode?: string | undefined;
  /** How long the platform asked to wait, in ms (convert seconds once, e.g. `parseRetryAfter`). */
  retryAfterMs?: number | undefined;
  /** The platform's description, for the message. */
  description?: string | undefined;
};

/**
 * The base of a plugin's API error (`AcmeApiError`): the name carries the platform code
 * (`AcmeApiError[rate_limited]`), the fields carry what classification needs.
 *
 * @example
 * export class AcmeApiError extends PlatformApiError {
 *   constructor(call: string, answer: PlatformAnswer) {
 *     super("HERALD_ACME_API", "the Acme API", call, answer);
 *   }
 * }
 */
export class PlatformApiError extends HeraldError {
  /** The API call, e.g. `POST /v1/chats/…/messages`. */
  readonly call: string;
  readonly status: number;
  readonly platformCode: string;
  /** In ms; undefined when the answer named no wait. */
  readonly retryAfterMs: number | undefined;

  /**
   * @param code - herald error code, e.g. `HERALD_ACME_API`.
   * @param platform - how the message names the platform, e.g. `the Acme API`.
   */
  constructor(
    code: string,
    platform: string,
    call: string,
    answer: PlatformAnswer,
    options?: ErrorOptions,
  ) {
    const platformCode = answer.platformCode ?? `http_${answer.status}`;
    const description = answer.description ? `: ${answer.description}` : "";
    super(
      code,
      `${call}: ${platform} answered ${answer.status} ${platformCode}${description}`,
      options,
    );
    this.name = `${new.target.name}[${platformCode}]`;
    this.call = call;
    this.status = answer.status;
    this.platformCode = platformCode;
    this.retryAfterMs = answer.retryAfterMs;
  }
}

/** The usual meaning of an HTTP error status. Other 4xx are `invalid_payload`. */
export const HTTP_STATUS_KINDS: Readonly<Record<number, DeliveryFailureKind>> = {
  400: "invalid_payload",
  401: "auth",
  403: "permission",
  404: "not_found",
  408: "transient",
  409: "conflict",
  413: "invalid_payload",
  422: "invalid_payload",
};

/** Options of {@link classifyHttpAnswer} and {@link classifyPlatformError}. */
export type HttpClassifyOptions = {
  /** Status → kind overrides (Telegram `{ 404: "auth" }`). */
  kinds?: Partial<Record<number, DeliveryFailureKind>>;
  /** The bucket a 429 paused. @defaultValue core's default */
  rateLimitScope?: DeliveryFailure["rateLimitScope"];
  /** Applied to every message (a URL in an error may hold a token). */
  redact?: (text: string) => string;
};

/**
 * An HTTP error answer as a delivery failure: 429 → `rate_limit` (`not_dispatched`, with
 * `retryAfterMs`); 5xx → `transient`, `maybe_sent`; 408 → `transient`, `not_dispatched`; any
 * other status → its kind from `kinds`, then {@link HTTP_STATUS_KINDS}, else `invalid_payload`,
 * `not_dispatched`.
 */
export function classifyHttpAnswer(
  answer: PlatformAnswer & { message: string },
  options: HttpClassifyOptions = {},
): ClassifiedFailure {
  const message = options.redact ? options.redact(answer.message) : answer.message;
  const base = {
    message,
    ...(answer.platformCode !== undefined ? { platformCode: answer.platformCode } : {}),
  };
  if (answer.status === 429) {
    return {
      ...base,
      kind: "rate_limit",
      evidence: "not_dispatched",
      ...(answer.retryAfterMs !== undefined ? { retryAfterMs: answer.retryAfterMs } : {}),
      ...(options.rateLimitScope ? { rateLimitScope: options.rateLimitScope } : {}),
    };
  }
  if (answer.status >= 500) return { ...base, kind: "transient", evidence: "maybe_sent" };
  const kind = options.kinds?.[answer.status] ?? HTTP_STATUS_KINDS[answer.status];
  return { ...base, kind: kind ?? "invalid_payload", evidence: "not_dispatched" };
}

/**
 * The `classifyError` of a plugin whose calls throw `PlatformNetworkError` (no answer) and
 * `PlatformApiError` (an error answer) subclasses: each by its evidence and status; anything
 * else is `unknown`, `maybe_sent` (the safe default — it may have been sent).
 *
 * @example
 * send: { …, classifyError: (error) => classifyPlatformError(error) }
 */
export function classifyPlatformError(
  error: unknown,
  options: HttpClassifyOptions = {},
): ClassifiedFailure {
  if (error instanceof PlatformNetworkError) return classifyNetworkError(error, options.redact);
  if (error instanceof PlatformApiError) return classifyHttpAnswer(error, options);
  const message = error instanceof Error ? error.message : String(error);
  return {
    kind: "unknown",
    evidence: "maybe_sent",
    message: options.redact ? options.redact(message) : message,
  };
}
