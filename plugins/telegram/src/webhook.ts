/**
 * The webhook receiver: Telegram POSTs each update to the gateway, which mounts `webhook()` at
 * `/webhooks/telegram/<account>`. The `X-Telegram-Bot-Api-Secret-Token` header is compared in
 * constant time before anything is read into herald — a mismatch gets 401 and leaves no trace
 * in the store. An accepted update is answered 200 as soon as it is durably recorded (ack
 * policy `immediate`, reason `webhook-timeout`) and processed in the background, so a slow
 * handler never makes Telegram give up and post it again; a repeat is answered 200 and not
 * processed twice (CASES C08). Telegram retries non-2xx answers, so a `retry` ack becomes 503.
 *
 * Source: https://core.telegram.org/bots/api#setwebhook
 *
 * @module
 */
import {
  ackToResponse,
  type ChannelReceiver,
  type ChannelReceiverSink,
  constantTimeEqual,
  receiverHealth,
  refuseUnauthenticated,
} from "@herald/plugin-sdk/channel-message";
import type { Api } from "grammy";
import { TELEGRAM_ALLOWED_UPDATES, type TelegramWebhookConfig } from "./config.ts";
import { answerCallback } from "./receiver.ts";

/** The header Telegram carries the webhook's `secret_token` in. */
export const SECRET_TOKEN_HEADER = "x-telegram-bot-api-secret-token";

/** Telegram's rule for `secret_token`: 1–256 characters `A-Z`, `a-z`, `0-9`, `_` and `-`. */
export const SECRET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/** Options of {@link createWebhookReceiver}. */
export type WebhookReceiverOptions = {
  api: Api;
  sink: ChannelReceiverSink;
  config: TelegramWebhookConfig;
  /** The webhook secret token (from `config.secretTokenEnv`). */
  secretToken: string;
};

/** A refusal without a body (405). */
const refuse = (status: number, headers?: Record<string, string>) =>
  new Response(null, { status, ...(headers ? { headers } : {}) });

/**
 * Creates the webhook receiver. `start()` registers the webhook with `setWebhook` when
 * `config.publicUrl` is set.
 *
 * @throws TypeError when the secret token breaks Telegram's rule (1–256 of `A-Za-z0-9_-`).
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): ChannelReceiver {
  const { api, sink, config, secretToken } = options;
  if (!SECRET_TOKEN_PATTERN.test(secretToken)) {
    throw new TypeError(
      `the webhook secret in ${config.secretTokenEnv} must be 1–256 characters of A-Z a-z 0-9 _ -`,
    );
  }
  const health = receiverHealth();
  return {
    health: health.get,
    async start() {
      health.set("connecting", "registering the webhook");
      if (config.publicUrl) {
        await api.setWebhook(config.publicUrl, {
          secret_token: secretToken,
          allowed_updates: [...TELEGRAM_ALLOWED_UPDATES],
        });
      }
      health.set("up");
    },
    async stop() {
      health.set("down", "stopped");
    },
    async webhook(request) {
      if (request.method !== "POST") return refuse(405, { allow: "POST" });
      const given = request.headers.get(SECRET_TOKEN_HEADER);
      if (!constantTimeEqual(given ?? "", secretToken)) {
        return refuseUnauthenticated(
          sink.logger,
          "telegram",
          given === null ? "missing_secret_token" : "wrong_secret_token",
          null,
        );
      }
      const text = await request.text();
      let update: unknown;
      try {
        update = JSON.parse(text);
      } catch {
        update = text; // not JSON: dead-lettered as received
      }
      // Every update goes to herald: kinds it does not handle are answered `ignore` by
      // normalize (logged and counted), never dropped here.
      const ticket = sink.receive(update, {
        ackPolicy: { kind: "immediate", reason: "webhook-timeout" },
      });
      const response = ackToResponse(await ticket.ack); // 200 `{}`, or 503 + Retry-After
      if (response.ok) answerCallback(api, update);
      return response;
    },
  };
}
