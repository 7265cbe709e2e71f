/**
 * Ack → webhook `Response`, the one copy: what a webhook receiver answers once
 * `ticket.ack` settles (core `ReceiveAckSignal`). `accept` is a 200 (platforms stop
 * redelivering); `retry` is a 503 with `Retry-After`, so the platform redelivers later and
 * nothing is lost (Telegram, Slack and Google Chat all retry non-2xx answers).
 *
 * @module
 */
import type { ReceiveAckSignal } from "@herald/core";
import { formatRetryAfter } from "./retry-after.ts";

/** Options of {@link ackToResponse}. */
export type AckResponseOptions = {
  /** JSON body of a 200 (Telegram expects `{}`; Slack's `url_verification` its challenge). @defaultValue {} */
  acceptBody?: unknown;
  /** Status of a `retry`. @defaultValue 503 */
  retryStatus?: number;
  /** `Retry-After` when the ack names no wait, in ms. @defaultValue 1_000 */
  defaultRetryAfterMs?: number;
};

/**
 * The webhook answer for an ack.
 *
 * @throws TypeError for a `manual` ack: under a `manual` policy the receiver decides from
 *   `ticket.done` what to answer.
 * @example
 * const ticket = sink.receive(update, { ackPolicy: { kind: "immediate", reason: "webhook-timeout" } });
 * return ackToResponse(await ticket.ack);
 */
export function ackToResponse(ack: ReceiveAckSignal, options: AckResponseOptions = {}): Response {
  if (ack.kind === "accept") return Response.json(options.acceptBody ?? {}, { status: 200 });
  if (ack.kind === "retry") {
    const waitMs = ack.retryAfterMs ?? options.defaultRetryAfterMs ?? 1_000;
    return new Response(null, {
      status: options.retryStatus ?? 503,
      headers: { "retry-after": formatRetryAfter(waitMs) },
    });
  }
  throw new TypeError(
    "ackToResponse: a manual ack has no answer of its own; decide from ticket.done",
  );
}

/** Where {@link refuseUnauthenticated} logs (a receiver sink's logger). */
type WarnLogger = { warn(fields: Record<string, unknown>, message: string): void };

/**
 * The 401 of a webhook request that failed authentication, with one log line saying why
 * ([H28] C49): a wrong secret in the config refuses every genuine event, and without the line an
 * operator sees nothing. `reason` must not contain a secret (say "bad_signature", not the
 * header's value); nothing is recorded in the store (DESIGN §11).
 *
 * @param channel - the channel id, first in the message (`slack: webhook request refused (401)`).
 * @param body - the 401's body. @defaultValue `unauthorized: <reason>`
 *
 * @example
 * if (refused) return refuseUnauthenticated(sink.logger, "slack", refused);
 */
export function refuseUnauthenticated(
  logger: WarnLogger,
  channel: string,
  reason: string,
  body: string | null = `unauthorized: ${reason}`,
): Response {
  logger.warn({ status: 401, reason }, `${channel}: webhook request refused (401): ${reason}`);
  return new Response(body, { status: 401 });
}
