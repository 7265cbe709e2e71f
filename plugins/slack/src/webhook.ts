/**
 * The Events API receiver (DESIGN §11): every request is authenticated before anything is
 * recorded — Slack's v0 signature, HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<raw body>`
 * with the app's signing secret, over the **exact raw bytes** whatever the content type (JSON
 * events, form-encoded slash commands and interactivity payloads), compared in constant time,
 * with the timestamp within `maxClockSkewMs` (5 minutes) of the clock. A missing header, a bad
 * signature or a stale timestamp answers 401 and leaves no trace. `url_verification` is answered
 * with its challenge (after the signature check); events go to the sink with the SDK's ack
 * deadline, so Slack gets an answer within its 3 s even when recording is slow (a `retry` then
 * makes Slack deliver again, and dedupe by team + channel + ts answers the repeat).
 *
 * Retry headers (`X-Slack-Retry-Num`, `X-Slack-Retry-Reason`) are not used for dedupe (C22).
 *
 * Sources: https://docs.slack.dev/authentication/verifying-requests-from-slack,
 * https://docs.slack.dev/apis/events-api/#handshake, https://docs.slack.dev/apis/events-api/#retries
 *
 * @module
 */
import {
  ackToResponse,
  type ChannelReceiver,
  type ChannelReceiverSink,
  refuseUnauthenticated,
  verifyHmacSha256,
  verifyTimestampedHmac,
} from "@herald/plugin-sdk/channel-message";
import type { SlackEventsConfig } from "./config.ts";

/** Slack's signature header. */
export const SIGNATURE_HEADER = "x-slack-signature";
/** Slack's timestamp header (seconds since the epoch). */
export const TIMESTAMP_HEADER = "x-slack-request-timestamp";

/** Options of {@link createEventsReceiver}. */
export type EventsReceiverOptions = {
  sink: ChannelReceiverSink;
  /** The app's signing secret (Basic Information → App Credentials). */
  signingSecret: string;
  config: Pick<SlackEventsConfig, "maxClockSkewMs" | "ackDeadlineMs">;
  /**
   * The account of a workspace, for one Events URL serving several workspaces: the event goes to
   * `sink.receive(raw, { accountId })`. Undefined: the sink's own account.
   */
  accountOfTeam?(teamId: string): string | undefined;
  /** Epoch-ms clock. @defaultValue Date.now */
  clock?: () => number;
};

/** Why a request was refused (logged with the 401; never recorded). */
export type EventsAuthFailure = "missing_header" | "stale_timestamp" | "bad_signature";

/**
 * Checks Slack's v0 signature of a request over its raw bytes, with the SDK's
 * `verifyTimestampedHmac` (the timestamp within `maxClockSkewMs`, then the HMAC).
 * @returns undefined when authentic, else why not (`stale_timestamp` only for a request signed
 *   right: a forged one is `bad_signature` whatever its timestamp).
 */
export function checkSlackSignature(
  headers: Headers,
  rawBody: Uint8Array,
  signingSecret: string,
  maxClockSkewMs: number,
  now: number = Date.now(),
): EventsAuthFailure | undefined {
  const timestamp = headers.get(TIMESTAMP_HEADER);
  const signature = headers.get(SIGNATURE_HEADER);
  if (!timestamp || !signature) return "missing_header";
  const v0 = { secret: signingSecret, signature, prefix: "v0=" };
  const signed = (ts: string) => ["v0:", ts, ":", rawBody];
  const maxSkewSeconds = maxClockSkewMs / 1_000;
  if (verifyTimestampedHmac({ ...v0, timestamp, signed, maxSkewSeconds, now })) return undefined;
  // Refused; the log says why: a right signature means the timestamp was out of the window.
  return verifyHmacSha256({ ...v0, signed: signed(timestamp) })
    ? "stale_timestamp"
    : "bad_signature";
}

/**
 * The body as Slack meant it: JSON for events, form fields for slash commands, and the JSON in
 * the `payload` field for interactivity. Text that is none of these is handed over as text
 * (normalize rejects it and herald dead-letters it).
 */
export function parseSlackBody(contentType: string, text: string | { notUtf8: string }): unknown {
  if (typeof text !== "string") return text.notUtf8;
  if (contentType.includes("application/x-www-form-urlencoded")) {
    const form = new URLSearchParams(text);
    const payload = form.get("payload");
    if (payload !== null) {
      try {
        return JSON.parse(payload);
      } catch {
        return text;
      }
    }
    return Object.fromEntries(form);
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The body as text. Slack sends UTF-8: a body that is not is never parsed (a lossy decoding
 * would record altered text), it is handed over as text so normalize dead-letters it.
 */
export function decodeUtf8(rawBody: Uint8Array): string | { notUtf8: string } {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(rawBody);
  } catch {
    return { notUtf8: new TextDecoder().decode(rawBody) };
  }
}

/** The Events API receiver of one account (mounted at `/webhooks/slack/<account>`). */
export function createEventsReceiver(
  options: EventsReceiverOptions,
): ChannelReceiver & { webhook(request: Request): Promise<Response> } {
  const clock = options.clock ?? Date.now;
  return {
    async webhook(request) {
      const rawBody = new Uint8Array(await request.arrayBuffer());
      const refused = checkSlackSignature(
        request.headers,
        rawBody,
        options.signingSecret,
        options.config.maxClockSkewMs,
        clock(),
      );
      if (refused) return refuseUnauthenticated(options.sink.logger, "slack", refused);
      const body = parseSlackBody(request.headers.get("content-type") ?? "", decodeUtf8(rawBody));
      const kind = (body as { type?: unknown } | null)?.type;
      if (kind === "url_verification") {
        return Response.json({ challenge: (body as { challenge?: unknown }).challenge ?? "" });
      }
      // Slack tells an app it stopped delivering for a while: nothing to record.
      if (kind === "app_rate_limited") return Response.json({});
      const team = (body as { team_id?: unknown } | null)?.team_id;
      const accountId = typeof team === "string" ? options.accountOfTeam?.(team) : undefined;
      const ticket = options.sink.receive(body, {
        ackDeadlineMs: options.config.ackDeadlineMs,
        ...(accountId !== undefined ? { accountId } : {}),
      });
      return ackToResponse(await ticket.ack);
    },
  };
}
