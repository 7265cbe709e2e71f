/**
 * A webhook-only receiver, the one copy: authenticate the raw body before anything is recorded
 * (401 otherwise), hand the event to the sink, answer from its ack (`ackToResponse`: 200 once
 * recorded, 503 + `Retry-After` so the platform delivers it again). Mounted by the gateway at
 * `/webhooks/:channel/:account`.
 *
 * @module
 */
import type { ReceiverSink, ReceiveSource } from "@herald/core";
import type { ChannelReceiver } from "./account.ts";
import {
  type AckResponseOptions,
  ackToResponse,
  refuseUnauthenticated,
} from "./util/webhook-response.ts";

/** Options of {@link webhookReceiver}. */
export type WebhookReceiverOptions = {
  sink: Pick<ReceiverSink, "receive">;
  /**
   * Whether the request comes from the platform: a signature over `rawBody` (`verifyHmacSha256`,
   * `verifyEd25519`) or a secret header (`constantTimeEqual`). False: 401, nothing recorded.
   */
  authenticate(request: Request, rawBody: Uint8Array): boolean | Promise<boolean>;
  /** Per-event receive options (`accountId`, `ackDeadlineMs`, `ackPolicy`). */
  source?(event: unknown, request: Request): Partial<Omit<ReceiveSource, "channel">> | undefined;
  /** How acks become answers (see `ackToResponse`). */
  response?: AckResponseOptions;
  /**
   * Where each refused request is logged (`refuseUnauthenticated`: one warn line with the
   * channel, never a secret). Pass it unless `authenticate` logs its own refusals: a wrong secret
   * otherwise refuses every genuine event silently, and the contract suite's webhook-auth tests
   * expect exactly one log line per refusal ([H28] C49).
   */
  refusals?: {
    logger: { warn(fields: Record<string, unknown>, message: string): void };
    channel: string;
  };
};

/**
 * Builds a receiver with only `webhook(request)`: no `start` / `stop` / `health` (the gateway
 * counts it `up` once the account is open). A body that is not JSON is handed over as text, so
 * `normalize` throws and herald dead-letters it — it is never dropped silently.
 *
 * @example
 * receiver: webhookReceiver({
 *   sink: deps.sink,
 *   authenticate: (request, rawBody) =>
 *     verifyHmacSha256({ secret, signed: [rawBody], signature: request.headers.get("x-signature") }),
 * }),
 */
export function webhookReceiver(
  options: WebhookReceiverOptions,
): ChannelReceiver & { webhook(request: Request): Promise<Response> } {
  return {
    async webhook(request) {
      const rawBody = new Uint8Array(await request.arrayBuffer());
      if (!(await options.authenticate(request, rawBody))) {
        if (options.refusals) {
          const { logger, channel } = options.refusals;
          return refuseUnauthenticated(logger, channel, "authentication failed", "unauthorized");
        }
        return new Response("unauthorized", { status: 401 });
      }
      const text = new TextDecoder().decode(rawBody);
      let event: unknown = text;
      try {
        event = JSON.parse(text);
      } catch {
        // not JSON: normalize decides (form bodies) or throws (dead-lettered)
      }
      const ticket = options.sink.receive(event, options.source?.(event, request));
      return ackToResponse(await ticket.ack, options.response);
    },
  };
}
