/**
 * Matrix errors and their classification (DESIGN §3 "two evidence axes"; STYLE: three kinds of
 * failure). {@link MatrixApiError}: the homeserver answered and said no — it carries the
 * platform's own `errcode` (`M_LIMIT_EXCEEDED`, `M_FORBIDDEN`…), the HTTP status and the wait it
 * asked for. {@link MatrixNetworkError}: no answer — refused (provably never dispatched) or
 * reset / timed out (maybe sent). {@link classifyError} converts them once into herald's terms.
 *
 * The access token travels in the `Authorization` header, never in a URL, but every message
 * built here is passed through the SDK's `redactSecrets` anyway.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#standard-error-response,
 * PLATFORMS.md §3 (Matrix).
 *
 * @module
 */
import {
  type ClassifiedFailure,
  classifyHttpAnswer,
  classifyNetworkError,
  type DeliveryFailureKind,
  HeraldError,
  NotImplementedError,
  ownValue,
  PlatformApiError,
  type PlatformNetworkError,
  platformErrors,
  redactSecrets,
} from "@herald/plugin-sdk/channel-message";

/** What the homeserver said, as on the wire (`{ errcode, error, retry_after_ms? }`). */
export type MatrixErrorBody = {
  errcode?: string;
  error?: string;
  /** Milliseconds to wait (429; deprecated since spec v1.10 in favour of `Retry-After`). */
  retry_after_ms?: number;
  /** `M_UNKNOWN_TOKEN`: the session may be refreshed instead of logged in again. */
  soft_logout?: boolean;
  [key: string]: unknown;
};

/**
 * The homeserver answered with an error. The name carries the errcode, e.g.
 * `MatrixApiError[M_LIMIT_EXCEEDED]`, so logs are greppable. `retryAfterMs` is the `Retry-After`
 * header when present, else `retry_after_ms` (the SDK's `MatrixError.getRetryAfterMs` order).
 */
export class MatrixApiError extends PlatformApiError {
  /** The Matrix errcode (`M_FORBIDDEN`), or `undefined` for a non-JSON answer (a proxy's 502 page). */
  readonly errcode: string | undefined;
  /** The error body as the homeserver sent it (`{}` for a non-JSON answer). */
  readonly body: MatrixErrorBody;

  /**
   * @param call - the request, e.g. `PUT /rooms/{roomId}/send/m.room.message/{txnId}`.
   * @param status - the HTTP status.
   */
  constructor(
    call: string,
    status: number,
    body: MatrixErrorBody,
    retryAfterMs: number | undefined,
    options?: ErrorOptions,
  ) {
    super(
      "HERALD_MATRIX_API",
      "the homeserver",
      call,
      {
        status,
        platformCode: body.errcode ?? `http_${status}`,
        retryAfterMs,
        description: body.error ?? (body.errcode ? undefined : "not a Matrix error answer"),
      },
      options,
    );
    this.errcode = body.errcode;
    this.body = body;
  }
}

/**
 * The homeserver never answered. `dispatched` is false only when the request provably never
 * left (refused, DNS, connect timeout); a reset, a timeout or an abort after the request was
 * written may have been applied. The reason comes from the SDK's `networkFailureOf`.
 */
export const { NetworkError: MatrixNetworkError } = platformErrors("Matrix", {
  code: "HERALD_MATRIX",
  platform: "the homeserver",
});
/** An instance of {@link MatrixNetworkError} (the SDK's `PlatformNetworkError`). */
export type MatrixNetworkError = PlatformNetworkError;

/**
 * The room is end-to-end encrypted (it has an `m.room.encryption` state event) and this account
 * runs **without** encryption (no `encryption` config): it neither sends plaintext into an
 * encrypted room nor pretends to read `m.room.encrypted` events (docs/channels/matrix.md,
 * "Encryption"). Code `HERALD_MATRIX_ENCRYPTED`.
 */
export class MatrixEncryptedRoomError extends HeraldError {
  readonly roomId: string;
  constructor(roomId: string) {
    super(
      "HERALD_MATRIX_ENCRYPTED",
      `room ${roomId} is end-to-end encrypted and this account has no encryption config (set encryption.storePath to join encrypted rooms)`,
    );
    this.roomId = roomId;
  }
}

/**
 * An `m.room.encrypted` event that could not be decrypted: its room key did not arrive within
 * `encryption.decryptWaitMs` (`MEGOLM_UNKNOWN_INBOUND_SESSION_ID`, `OLM_UNKNOWN_MESSAGE_INDEX`),
 * or the crypto refused it at once (withheld key, unknown sender device, …). The event is
 * dead-lettered with this error; `reason` is matrix-js-sdk's `DecryptionFailureCode`.
 * Code `HERALD_MATRIX_UNDECRYPTABLE`.
 */
export class MatrixDecryptionError extends HeraldError {
  readonly roomId: string;
  readonly eventId: string;
  /** matrix-js-sdk's `DecryptionFailureCode`, e.g. `MEGOLM_UNKNOWN_INBOUND_SESSION_ID`. */
  readonly reason: string;
  constructor(roomId: string, eventId: string, reason: string, detail: string) {
    super(
      "HERALD_MATRIX_UNDECRYPTABLE",
      `event ${eventId} in room ${roomId} could not be decrypted (${reason}): ${detail}`,
    );
    this.roomId = roomId;
    this.eventId = eventId;
    this.reason = reason;
  }
}

/**
 * An edit the homeserver accepted but does not show: another edit of the same event still wins
 * the ordering (`origin_server_ts`, then the larger event id) after the edit was sent again
 * `resends` times. Classified `not_found` — the message as herald meant it is not there — so a
 * live final is sent fresh and the draft redacted only after that final was accepted, and a
 * durable edit becomes a fresh send (`freshSendOnEditNotFound`). Code `HERALD_MATRIX_EDIT_NOT_SHOWN`.
 */
export class MatrixEditNotShownError extends HeraldError {
  /** The original event and the edit shown instead. */
  readonly original: string;
  readonly shown: string;
  constructor(original: string, shown: string, resends: number) {
    super(
      "HERALD_MATRIX_EDIT_NOT_SHOWN",
      `the homeserver shows edit ${shown} of ${original}, not ours, after ${resends} resends`,
    );
    this.original = original;
    this.shown = shown;
  }
}

/** A message this channel cannot render or address (a malformed room or event id, nothing to send). */
export class MatrixRenderError extends HeraldError {
  constructor(message: string) {
    super("HERALD_MATRIX_RENDER", message);
  }
}

/** errcode → kind (PLATFORMS.md §3, Matrix). Anything else is classified by HTTP status. */
const KIND_BY_ERRCODE: Readonly<Record<string, DeliveryFailureKind>> = {
  M_LIMIT_EXCEEDED: "rate_limit",
  M_FORBIDDEN: "permission",
  M_GUEST_ACCESS_FORBIDDEN: "permission",
  M_NOT_FOUND: "not_found",
  M_TOO_LARGE: "invalid_payload",
  M_BAD_JSON: "invalid_payload",
  M_NOT_JSON: "invalid_payload",
  M_INVALID_PARAM: "invalid_payload",
  M_MISSING_PARAM: "invalid_payload",
  M_UNKNOWN_TOKEN: "auth",
  M_MISSING_TOKEN: "auth",
  M_UNAUTHORIZED: "auth",
  M_USER_DEACTIVATED: "auth",
  // An endpoint the server does not support: not a content problem, not retryable.
  M_UNRECOGNIZED: "unknown",
};

/**
 * Classifies what a Matrix call threw (PLATFORMS.md §3):
 * - `M_LIMIT_EXCEEDED` (or any 429) → `rate_limit`, `not_dispatched`, `retryAfterMs` from
 *   `Retry-After` or `retry_after_ms`, scope `chat` (the room's one budget for sends, edits and
 *   redactions);
 * - `M_FORBIDDEN` → `permission`; `M_NOT_FOUND` → `not_found`; `M_TOO_LARGE`, `M_BAD_JSON`,
 *   `M_INVALID_PARAM`… → `invalid_payload`; `M_UNKNOWN_TOKEN`, `M_MISSING_TOKEN` → `auth` — all
 *   `not_dispatched` (the homeserver refused them);
 * - any **5xx** (a `MatrixError` or a proxy's HTML page) → `transient`, `maybe_sent`;
 * - no answer: refused / DNS / connect timeout → `transient`, `not_dispatched`; reset, timeout,
 *   abort → `transient`, `maybe_sent`;
 * - {@link MatrixRenderError} → `invalid_payload`; {@link MatrixEncryptedRoomError} →
 *   `permission` (the room cannot be served); `NotImplementedError` (files in an encrypted room)
 *   → `invalid_payload`, `not_dispatched`; {@link MatrixEditNotShownError} → `not_found`
 *   (the edit lost the ordering: send fresh); anything else → `unknown`, `maybe_sent`.
 *
 * @param secrets - redacted from the returned message (the access token).
 */
export function classifyError(error: unknown, secrets: readonly string[] = []): ClassifiedFailure {
  const redact = (text: string) => (secrets.length ? redactSecrets(text, secrets) : text);
  if (error instanceof MatrixApiError) {
    const kind = error.errcode ? ownValue(KIND_BY_ERRCODE, error.errcode) : undefined;
    if (error.status === 429 || kind === "rate_limit") {
      return {
        kind: "rate_limit",
        evidence: "not_dispatched",
        message: redact(error.message),
        platformCode: error.platformCode,
        rateLimitScope: "chat",
        ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      };
    }
    if (error.status < 500 && kind !== undefined) {
      return {
        kind,
        evidence: "not_dispatched",
        message: redact(error.message),
        platformCode: error.platformCode,
      };
    }
    return classifyHttpAnswer(error, { redact, rateLimitScope: "chat" });
  }
  if (error instanceof MatrixNetworkError) return classifyNetworkError(error, redact);
  if (error instanceof MatrixRenderError) {
    return { kind: "invalid_payload", evidence: "not_dispatched", message: redact(error.message) };
  }
  if (error instanceof MatrixEditNotShownError) {
    return {
      kind: "not_found",
      evidence: "not_dispatched",
      message: error.message,
      platformCode: "edit_not_shown",
    };
  }
  if (error instanceof NotImplementedError) {
    // Nothing was sent (files in an encrypted room): retrying cannot help.
    return {
      kind: "invalid_payload",
      evidence: "not_dispatched",
      message: error.message,
      platformCode: "not_implemented",
    };
  }
  if (error instanceof MatrixEncryptedRoomError) {
    return {
      kind: "permission",
      evidence: "not_dispatched",
      message: error.message,
      platformCode: "encrypted_room",
    };
  }
  return {
    kind: "unknown",
    evidence: "maybe_sent",
    message: redact(error instanceof Error ? error.message : String(error)),
  };
}
