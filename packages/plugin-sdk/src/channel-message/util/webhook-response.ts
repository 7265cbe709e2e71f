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
