/**
 * The HTTP endpoint receiver: Chat POSTs every app event with `Authorization: Bearer <token>`,
 * verified before anything is recorded (401 otherwise; DESIGN §11, CASES C34) in the mode of
 * the app's "Authentication audience" setting (PLATFORMS.md §7):
 *
 * - **endpoint URL**: an OIDC ID token signed by Google — signature against Google's
 *   certificates (`certsUrls.idToken`), `aud` exactly the configured URL, `iss`
 *   `accounts.google.com`, not expired, and `email` one of `serviceAccountEmails` (verified);
 * - **project number**: a JWT signed by `chat@system.gserviceaccount.com` — signature against
 *   that account's certificates (`certsUrls.chat`), `iss` exactly that account, `aud` exactly
 *   the project number, not expired.
 *
 * Both checks are google-auth-library's (`verifyIdToken`, `verifySignedJwtWithCertsAsync`).
 * Certificates are fetched once and again when a token names a key id they lack (rotation).
 *
 * Source: https://developers.google.com/workspace/chat/verify-requests-from-chat
 *
 * @module
 */
import {
  type ChannelReceiver,
  type ChannelReceiverSink,
  type ReceiveTicket,
  redactSecrets,
  webhookReceiver,
} from "@herald/plugin-sdk/channel-message";
import { OAuth2Client } from "google-auth-library";
import { CHAT_ISSUER_EMAIL, type GoogleChatReceiveConfig } from "./config.ts";

/** Largest event body accepted, in bytes (a message is ≤ 32,000 bytes; events wrap it). */
export const MAX_EVENT_BYTES = 256 * 1024;

/** Why a bearer token was refused, or `ok`. */
export type BearerCheck = { ok: true; subject: string } | { ok: false; reason: string };

const bearerOf = (header: string | null): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1];

const kidOf = (jwt: string): string | undefined => {
  try {
    const head = JSON.parse(Buffer.from(jwt.split(".")[0] ?? "", "base64url").toString()) as {
      kid?: unknown;
    };
    return typeof head.kid === "string" ? head.kid : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Checks Chat bearer tokens for one receive config.
 *
 * @returns a function of the `Authorization` header value; it never throws, and a refusal's
 *   `reason` never contains the token.
 */
export function createBearerVerifier(
  config: GoogleChatReceiveConfig,
): (authorization: string | null) => Promise<BearerCheck> {
  const audience = config.audience;
  const client = new OAuth2Client({
    endpoints: { oauth2FederatedSignonPemCertsUrl: config.certsUrls.idToken },
  });
  let chatCerts: Record<string, string> | undefined;
  const certsFor = async (kid: string | undefined): Promise<Record<string, string>> => {
    // `Object.hasOwn`: a `kid` of "constructor" is not a certificate we have (C49).
    if (!chatCerts || (kid !== undefined && !Object.hasOwn(chatCerts, kid))) {
      const response = await fetch(config.certsUrls.chat);
      if (!response.ok) throw new Error(`certificates answered ${response.status}`);
      chatCerts = (await response.json()) as Record<string, string>;
    }
    return chatCerts;
  };
  return async (authorization) => {
    const token = bearerOf(authorization);
    if (!token) return { ok: false, reason: "no bearer token" };
    try {
      if (audience.type === "endpoint_url") {
        const ticket = await client.verifyIdToken({ idToken: token, audience: audience.url });
        const payload = ticket.getPayload();
        const email = payload?.email;
        if (!email || payload?.email_verified !== true) {
          return { ok: false, reason: "the ID token has no verified email" };
        }
        if (!audience.serviceAccountEmails.includes(email)) {
          return { ok: false, reason: `the ID token is from ${email}, not a Chat service account` };
        }
        return { ok: true, subject: email };
      }
      const certs = await certsFor(kidOf(token));
      const ticket = await client.verifySignedJwtWithCertsAsync(
        token,
        certs,
        audience.projectNumber,
        [CHAT_ISSUER_EMAIL],
      );
      const iss = ticket.getPayload()?.iss;
      if (iss !== CHAT_ISSUER_EMAIL) return { ok: false, reason: `issuer ${String(iss)}` };
      return { ok: true, subject: iss };
    } catch (error) {
      // google-auth-library puts the whole token in its messages ("Invalid token signature:
      // <jwt>"): a still-valid bearer token must never reach a log.
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, reason: redactSecrets(message, [token]) };
    }
  };
}

/**
 * A sink that hands an `ADDED_TO_SPACE` event carrying a `message` — the app was added by
 * @mentioning it, and that message is the person's first question (Chat sends no separate
 * `MESSAGE` event for it) — to `sink` twice: the membership event, then the message as a
 * `MESSAGE` event (deduped on `message.name` like any other). The answer waits for both; if
 * either asks for a redelivery, so does the answer (the accepted half is then a duplicate).
 */
export function splitAddedWithMessage(sink: ChannelReceiverSink): ChannelReceiverSink {
  return {
    ...sink,
    receive(raw, source) {
      const event = raw as { type?: unknown; message?: unknown } | null;
      if (event?.type !== "ADDED_TO_SPACE" || typeof event.message !== "object" || !event.message) {
        return sink.receive(raw, source);
      }
      const { message: _, ...membership } = event;
      const joined = sink.receive(membership, source);
      const message = sink.receive({ ...event, type: "MESSAGE" }, source);
      return {
        ack: Promise.all([joined.ack, message.ack]).then(([a, b]) => (a.kind === "accept" ? b : a)),
        done: Promise.all([joined.done, message.done]).then(([, outcome]) => outcome),
      } satisfies ReceiveTicket;
    },
  };
}

/**
 * The webhook receiver of one account: bearer token verified first (401, nothing recorded),
 * then the event handed to the sink ({@link splitAddedWithMessage}); answered `{}` once
 * recorded, 503 + `Retry-After` to have Chat deliver it again.
 */
export function createWebhookReceiver(
  config: GoogleChatReceiveConfig,
  sink: ChannelReceiverSink,
): ChannelReceiver & { webhook(request: Request): Promise<Response> } {
  const verify = createBearerVerifier(config);
  return {
    ...webhookReceiver({
      sink: splitAddedWithMessage(sink),
      authenticate: async (request) => {
        const check = await verify(request.headers.get("authorization"));
        // Say why (never the token): a wrong audience in the config refuses every event.
        if (!check.ok)
          sink.logger.warn({ reason: check.reason }, "googlechat: event refused (401)");
        return check.ok;
      },
      response: { acceptBody: {} },
    }),
    maxWebhookBodyBytes: MAX_EVENT_BYTES,
  };
}
