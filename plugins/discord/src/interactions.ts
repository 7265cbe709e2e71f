/**
 * The interactions endpoint (HTTP): Discord POSTs slash commands, components and modal submits
 * to the gateway's `/webhooks/discord/<account>`, signed with Ed25519 over
 * `X-Signature-Timestamp` + the **exact raw body** (CASES C29). The signature is checked with the
 * SDK's `verifyEd25519` on the bytes as received — before anything is parsed or recorded; a
 * missing, malformed or wrong signature, or a timestamp more than 5 minutes off, answers 401 and
 * records nothing (Discord itself sends such requests to check the endpoint). A PING (type 1)
 * answers `{"type":1}`. Other interactions are handed to the sink as `INTERACTION_CREATE` and,
 * once recorded, answered with a deferred response (type 5 for commands and modals, 6 for
 * components); herald's reply is then a normal channel message (nonce-covered), not an
 * interaction follow-up (which Discord's nonce does not cover).
 *
 * Source: https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-validating-security-request-headers
 *
 * @module
 */
import {
  ackToResponse,
  type ChannelReceiverSink,
  ed25519PublicKey,
  refuseUnauthenticated,
  verifyEd25519,
} from "@herald/plugin-sdk/channel-message";

/** The signature headers Discord sends. */
export const SIGNATURE_HEADER = "x-signature-ed25519";
export const TIMESTAMP_HEADER = "x-signature-timestamp";

/** How far a signed timestamp may be from now, in ms (a replayed old request is refused). */
export const SIGNATURE_MAX_AGE_MS = 5 * 60_000;

/** Interaction types (discord-api-types `InteractionType`). */
const PING = 1;
const MESSAGE_COMPONENT = 3;

/** Options of {@link createInteractionsHandler}. */
export type InteractionsOptions = {
  /** The application's public key, 64 hex digits. */
  publicKey: string;
  sink: Pick<ChannelReceiverSink, "receive" | "logger">;
  /** @defaultValue Date.now */
  clock?: () => number;
};

/**
 * Builds the `webhook(request)` handler of the interactions endpoint.
 * @throws TypeError when `publicKey` is not 64 hex digits (a configuration error, at build time).
 */
export function createInteractionsHandler(
  options: InteractionsOptions,
): (request: Request) => Promise<Response> {
  const key = ed25519PublicKey(options.publicKey);
  const clock = options.clock ?? Date.now;
  return async (request) => {
    const rawBody = new Uint8Array(await request.arrayBuffer());
    const timestamp = request.headers.get(TIMESTAMP_HEADER);
    const signature = request.headers.get(SIGNATURE_HEADER);
    const fresh =
      timestamp !== null &&
      /^\d{1,12}$/.test(timestamp) &&
      Math.abs(clock() - Number(timestamp) * 1_000) <= SIGNATURE_MAX_AGE_MS;
    if (!fresh || !verifyEd25519({ publicKey: key, signed: [timestamp, rawBody], signature })) {
      return refuseUnauthenticated(
        options.sink.logger,
        "discord",
        timestamp === null || signature === null
          ? "missing_header"
          : fresh
            ? "bad_signature"
            : "stale_timestamp",
        "invalid request signature",
      );
    }
    let interaction: unknown;
    try {
      interaction = JSON.parse(new TextDecoder().decode(rawBody));
    } catch {
      return new Response("body is not JSON", { status: 400 });
    }
    // `null`, an array, a string…: not an interaction (and `null.type` would throw).
    if (interaction === null || typeof interaction !== "object" || Array.isArray(interaction)) {
      return new Response("body is not a JSON object", { status: 400 });
    }
    const { type } = interaction as { type?: unknown };
    if (type === PING) return Response.json({ type: 1 });
    const ticket = options.sink.receive({ t: "INTERACTION_CREATE", s: null, d: interaction });
    return ackToResponse(await ticket.ack, {
      acceptBody: { type: type === MESSAGE_COMPONENT ? 6 : 5 },
    });
  };
}
