/**
 * The fake's Events API sender: what Slack does when something happens in a workspace — it POSTs
 * a signed `event_callback` (v0 HMAC over the raw body, `X-Slack-Request-Timestamp`) to each
 * app's Request URL, a new `event_id` per delivery. Tests connect a receiver's `webhook` per
 * bot; {@link signSlackRequest} signs any body (forged and stale deliveries too).
 *
 * @module
 */
import { hmacSha256Hex } from "@herald/plugin-sdk/channel-message";
import type { FakeSlackBot } from "./fakeTypes.ts";

/** Headers of a request signed like Slack signs it. */
export function signSlackRequest(
  signingSecret: string,
  body: string,
  timestampSeconds: number = Math.floor(Date.now() / 1_000),
): Record<string, string> {
  const ts = String(timestampSeconds);
  return {
    "x-slack-request-timestamp": ts,
    "x-slack-signature": `v0=${hmacSha256Hex(signingSecret, ["v0:", ts, ":", body])}`,
  };
}

/** A receiver's webhook, as the gateway mounts it. */
export type FakeWebhook = (request: Request) => Promise<Response>;

/** One delivery the sender made, for assertions. */
export type FakeDelivery = { botToken: string; eventId: string; status: number };

/** Posts events to the connected webhooks (one per bot). */
export class EventSender {
  readonly deliveries: FakeDelivery[] = [];
  readonly #webhooks = new Map<string, FakeWebhook>();
  #nextEvent = 1;

  /** Delivers `bot`'s events to `webhook` from now on (as the app's Request URL). */
  connect(bot: FakeSlackBot, webhook: FakeWebhook): void {
    this.#webhooks.set(bot.token, webhook);
  }

  /** Whether a webhook is connected for `bot`. */
  connected(bot: FakeSlackBot): boolean {
    return this.#webhooks.has(bot.token);
  }

  /** A fresh event id (`Ev…`). */
  nextEventId(): string {
    return `Ev${String(this.#nextEvent++).padStart(8, "0")}`;
  }

  /** The `event_callback` envelope of an event for `bot`. */
  envelope(bot: FakeSlackBot, event: Record<string, unknown>, eventId = this.nextEventId()) {
    return {
      token: "deprecated-verification-token",
      team_id: bot.teamId,
      api_app_id: bot.appId,
      event,
      type: "event_callback",
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1_000),
      authorizations: [
        { team_id: bot.teamId, user_id: bot.userId, is_bot: true, is_enterprise_install: false },
      ],
    };
  }

  /**
   * POSTs a body to `bot`'s webhook, signed with its signing secret (or as `sign` says).
   * @returns the webhook's answer; undefined when no webhook is connected.
   */
  async post(
    bot: FakeSlackBot,
    body: string,
    options: {
      contentType?: string;
      headers?: Record<string, string>;
      eventId?: string;
      timestampSeconds?: number;
    } = {},
  ): Promise<Response | undefined> {
    const webhook = this.#webhooks.get(bot.token);
    if (!webhook) return undefined;
    const headers =
      options.headers ?? signSlackRequest(bot.signingSecret, body, options.timestampSeconds);
    const response = await webhook(
      new Request("http://127.0.0.1/webhooks/slack", {
        method: "POST",
        headers: { "content-type": options.contentType ?? "application/json", ...headers },
        body,
      }),
    );
    this.deliveries.push({
      botToken: bot.token,
      eventId: options.eventId ?? "",
      status: response.status,
    });
    return response;
  }

  /**
   * Delivers an event (new `event_id` unless given) to `bot`'s webhook. `retry`: Slack's
   * redelivery of an unanswered event — the same `event_id`, with `X-Slack-Retry-Num` (1–3)
   * and `X-Slack-Retry-Reason` (api.slack.com/apis/events-api, "Retries").
   */
  async deliver(
    bot: FakeSlackBot,
    event: Record<string, unknown>,
    eventId?: string,
    retry?: { num: number; reason?: string },
  ): Promise<Response | undefined> {
    const body = this.envelope(bot, event, eventId);
    const text = JSON.stringify(body);
    return this.post(bot, text, {
      eventId: body.event_id,
      ...(retry
        ? {
            headers: {
              ...signSlackRequest(bot.signingSecret, text),
              "x-slack-retry-num": String(retry.num),
              "x-slack-retry-reason": retry.reason ?? "http_timeout",
            },
          }
        : {}),
    });
  }
}
